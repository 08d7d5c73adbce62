"""Read a screenshot's pixels: Playwright's PNG bytes as a NumPy array, with zlib and no imaging library.

Enough PNG for Chromium's screenshots: 8 bits a channel, RGB or RGBA, not interlaced.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

CHANNELS = {2: 3, 6: 4}  # colour type -> channels: RGB, RGBA


def png_pixels(png: bytes) -> np.ndarray:
    """The image's pixels, [height, width, channels] uint8."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(png):
        (length,), kind = struct.unpack(">I", png[pos : pos + 4]), png[pos + 4 : pos + 8]
        body = png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in CHANNELS and interlace == 0, f"an unexpected PNG: {header}"
    n = CHANNELS[colour]
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(height, 1 + width * n)
    return unfilter(raw, n).reshape(height, width, n)


def unfilter(raw: np.ndarray, n: int) -> np.ndarray:
    """Undo each row's PNG filter (None, Sub, Up, Average, Paeth): [height, 1 + width*n] -> [height, width*n]."""
    rows = np.zeros((raw.shape[0], raw.shape[1] - 1), dtype=np.int32)
    previous = np.zeros(raw.shape[1] - 1, dtype=np.int32)
    for y, (kind, *line) in enumerate(raw.astype(np.int32)):
        line = np.array(line, dtype=np.int32)
        if kind in (0, 2):
            row = (line + (previous if kind == 2 else 0)) % 256
        else:
            row = np.zeros_like(line)
            for x in range(len(line)):
                left = row[x - n] if x >= n else 0
                up, corner = previous[x], previous[x - n] if x >= n else 0
                if kind == 1:
                    guess = left
                elif kind == 3:
                    guess = (left + up) // 2
                else:
                    guess = paeth(left, up, corner)
                row[x] = (line[x] + guess) % 256
        rows[y] = previous = row
    return rows.astype(np.uint8)


def paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def columns_of(pixels: np.ndarray, rgb: tuple[int, int, int], tolerance: int = 24) -> np.ndarray:
    """The x of every column that has a pixel of the colour rgb (each channel within tolerance)."""
    close = np.all(np.abs(pixels[:, :, :3].astype(int) - np.array(rgb)) <= tolerance, axis=2)
    return np.flatnonzero(close.any(axis=0))

"""The machinery behind the lesson: reading model files, finding models, and the caches that make steps fast."""

"""A model a class builds from its own sentences, on the web: where its sentences are kept and how a URL names
its model (class_access.py)."""

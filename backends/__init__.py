"""One adapter per runtime; `backends.registry` lists them."""

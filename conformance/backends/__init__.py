"""One adapter per runtime; `conformance.backends.registry` lists them."""

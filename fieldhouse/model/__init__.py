"""Pure domain: no I/O, imported by every other package, imports none of them."""

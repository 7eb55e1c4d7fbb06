"""JavaScript's semantics where Python's differ.

Pi is a Node program: it measures strings in UTF-16 code units, sorts them by code unit, prints
numbers with ``String(number)``, reads and writes JSON with V8's ``JSON.parse`` and
``JSON.stringify`` and reads dates with ``Date.parse``. The modules here give those results in
Python, byte for byte:

* :mod:`pi_lsp.js.json` — ``JSON.parse``, ``JSON.stringify``, ``String(number)``, ``Object.keys``;
* :mod:`pi_lsp.js.json_document` — ``JSON.parse`` with member positions and V8's error messages;
* :mod:`pi_lsp.js.text` — string length, slicing, trimming and sort order in UTF-16 code units;
* :mod:`pi_lsp.js.dates` — ``Date.parse`` for the ISO-8601 timestamps Pi writes.

This package is the bottom layer: its modules import nothing of pi_lsp outside ``pi_lsp.js``.
The package itself re-exports nothing; import from the module that owns a name.
"""

"""The layers of weft.sparse.nn (api-sparse.md §5), one module per family."""

"""Reading data: file formats, TREC files, column roles, validation, loaders, export."""

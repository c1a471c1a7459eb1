"""Reading publishers' files, shared by every importer: sources to paths (`sources`), bytes to
text (`decoding`), text to CSV rows (`rows`), a header's columns by name (`columns`) and rows
counted with progress (`counting`). One reader for all, so every dataset meets encodings,
gzip, zips and cut-off downloads the same way.
"""

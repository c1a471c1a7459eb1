"""The bundled SYNTHETIC demo dataset, generated in the publishers' own file formats.

Every school is invented; only the local authorities and the postcodes (OS Code-Point Open
rows, copied byte for byte) are real, and no invented name is a real school's. The output is
reproducible byte for byte: one seed, no clock, gzip without a name or time.

    .venv/bin/python -m tools.demo --codepoint ../shared/data/codepoint_open \\
        --out src/schooldata/adapters/sample/data      # `make demo-data`

`--full-scale` writes only a national-size GIAS file for the benchmarks (bench/dataset.py).
The column names the importers read are theirs (`schooldata.adapters.importers`), not copies.
"""

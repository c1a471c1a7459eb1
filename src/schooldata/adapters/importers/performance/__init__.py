"""DfE school-level tables (performance tables, admissions, finance) -> MeasureRecord.

One reader (`reader.parse_table`) serves every such table: what differs between datasets is
data, a `spec.TableSpec` each (`datasets`), never code. `periods` reads academic years (from
`--period`, or the older downloads' names).
"""

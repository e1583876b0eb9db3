"""A contract type import-linter lacks: a package that may import only what it names.

`forbidden` names what may not be imported, so a new dependency would slip past it; this
contract names what may be, and refuses everything else: any installed package outside the
standard library and `allowed_packages`, and any project module outside the package itself
and `allowed_modules`. pyproject.toml registers it (`contract_types`) for the rules engine,
which is pure Python by design, and for the ledger wing, which sits under the rest of rolls.
"""

import sys

from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output


class ImportsOnlyContract(Contract):
    """Configuration:
    - source_modules: the packages checked (each with all its descendants);
    - allowed_packages: installed top-level packages they may import besides the standard
      library (optional);
    - allowed_modules: project modules they may import, each with its descendants
      (optional).

    Needs `include_external_packages = true`, so that every import is in the graph.
    """

    type_name = "imports_only"

    source_modules = fields.ListField(subfield=fields.StringField())
    allowed_packages = fields.ListField(subfield=fields.StringField(), required=False)
    allowed_modules = fields.ListField(subfield=fields.StringField(), required=False)

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        allowed = set(self.allowed_packages or ()) | set(sys.stdlib_module_names)
        modules = tuple(self.allowed_modules or ())
        illegal = []
        for source in self.source_modules:
            inside = {source} | graph.find_descendants(source)
            for importer in sorted(inside):
                for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                    if imported in inside or imported.split(".")[0] in allowed:
                        continue
                    if any(imported == m or imported.startswith(m + ".") for m in modules):
                        continue
                    details = graph.get_import_details(importer=importer, imported=imported)
                    lines = ", ".join(str(d["line_number"]) for d in details)
                    illegal.append((importer, imported, lines))
        return ContractCheck(kept=not illegal, warnings=None, metadata={"illegal": illegal})

    def render_broken_contract(self, check: ContractCheck) -> None:
        output.print_error("Imports outside what the contract allows:")
        output.new_line()
        for importer, imported, lines in check.metadata["illegal"]:
            output.print_error(f"- {importer} -> {imported} (l.{lines})", bold=False)
        output.new_line()

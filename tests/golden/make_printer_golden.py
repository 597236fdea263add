"""Regenerate printer.json: the house printer's LaTeX for the Sec. II-III formulas.
Review the diff before committing a regenerated file."""
import json
import pathlib

import derive
from derive.printing import latex

names = [f.name for f in derive.formulas("asoodeh2021")
         if f.source.section in ("Sec. II", "Sec. III")]
out = {n: latex(derive.formula(n).expr) for n in names}
path = pathlib.Path(__file__).with_name("printer.json")
path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
print(f"wrote {len(out)} entries to {path}")

"""Times allotropy (Benchling's converter to the Allotrope Simple Model) over the files section 10 of the bench hands it.

Run by bench/file-peer.ts, not by hand:

    python3 bench/allotropy-read.py <ALLOTROPY_DIR> <VENDOR>:<rounds>=<file> [<VENDOR>:<rounds>=<file> ...]

<ALLOTROPY_DIR> is a checkout of github.com/Benchling-Open-Source/allotropy (MIT; not part of this package): this
script puts its src/ first on sys.path and imports allotropy from there, not from an installed copy. <VENDOR> is the
name of a member of allotropy.parser_factory.Vendor (APPBIO_QUANTSTUDIO, THERMO_SKANIT ...), <rounds> how many
times the file is converted. The set-up the figures in
docs/performance.md were measured with (pip reached only part of PyPI):

    git clone https://github.com/Benchling-Open-Source/allotropy /tmp/allotropy
    python3 -m venv /tmp/allo-venv
    /tmp/allo-venv/bin/pip install 'pandas==2.2.*' numpy openpyxl jsonschema chardet xlrd babel \
        defusedxml olefile rfc3339-validator
    ALLOTROPY_DIR=/tmp/allotropy ALLOTROPY_PYTHON=/tmp/allo-venv/bin/python npm run bench -- --only 10

Where a dependency of allotropy could not be installed, this script stands in for it without touching allotropy's
source, and says so in its output ("shims"):
- python-calamine (pandas' engine="calamine", which allotropy's Excel readers ask for): pandas' "calamine" engine
  is mapped to its openpyxl reader. Slower than calamine, so allotropy's workbook figures are a lower bound.
- rainbow-api and xmltodict: imported by the parsers of Agilent OpenLab CDS and Cytiva Biacore only, which the
  bench does not use; empty modules under their names let allotropy.parser_factory import.
allotropy pins jsonschema < 4.18.0 (a slower validator after it, says its pyproject); where only a later one is to be
had it runs with that, and the output names the version.

A round converts the file once, in two timed steps that together are allotropy.to_allotrope.allotrope_from_file:
allotrope_model_from_file (read and parse into the model) and serialize_and_validate_allotrope (the model to a dict,
checked against the ASM JSON schema); clock and CPU time (this process) of each. The first file of each vendor is
converted once more before its rounds, not timed: what the first conversion pays once (the parser's imports, the
schema loaded and its validator built). The first round's document gives the count of measurement documents.

Prints one JSON object on stdout; a file allotropy fails on has "error" in place of rounds. Exit 3 when allotropy
itself does not import (the object then has "error" only).
"""
import importlib
import importlib.metadata
import importlib.util
import json
import os
import sys
import time
import types
import warnings


def install_shims():
    shims = []
    if importlib.util.find_spec('python_calamine') is None:
        from pandas.io.excel._base import ExcelFile
        from pandas.io.excel._openpyxl import OpenpyxlReader

        ExcelFile._engines = {**ExcelFile._engines, 'calamine': OpenpyxlReader}
        shims.append('python-calamine -> openpyxl')
    for top, names in (('rainbow', ['rainbow', 'rainbow.agilent', 'rainbow.agilent.chemstation']), ('xmltodict', ['xmltodict'])):
        if importlib.util.find_spec(top) is None:
            for name in names:
                sys.modules[name] = types.ModuleType(name)
            shims.append(f'{top} stubbed (parsers not benched)')
    # openpyxl warns of every Apache POI workbook's missing default style; nothing the bench reads depends on it.
    warnings.filterwarnings('ignore', module='openpyxl')
    return shims


def measurements(document):
    """How many measurement documents the ASM holds: one per well and target, or per plate well."""
    if isinstance(document, dict):
        return sum(len(v) if k == 'measurement document' and isinstance(v, list) else measurements(v) for k, v in document.items())
    if isinstance(document, list):
        return sum(measurements(v) for v in document)
    return 0


def timed(step):
    started, cpu = time.perf_counter(), time.process_time()
    value = step()
    return value, time.perf_counter() - started, time.process_time() - cpu


def main():
    root, plan = sys.argv[1], [(*a.split('=', 1)[0].split(':'), a.split('=', 1)[1]) for a in sys.argv[2:]]
    sys.path.insert(0, os.path.join(root, 'src'))
    try:
        shims = install_shims()
        from allotropy.__about__ import __version__
        from allotropy.allotrope.allotrope import serialize_and_validate_allotrope
        from allotropy.parser_factory import Vendor
        from allotropy.to_allotrope import allotrope_model_from_file
        import pandas
    except Exception as e:  # noqa: BLE001 (any reason it does not import is the row's reason)
        json.dump({'error': f'{type(e).__name__}: {e}'}, sys.stdout)
        sys.stdout.write('\n')
        sys.exit(3)
    result = {
        'python': sys.version.split()[0],
        'allotropy': __version__,
        'pandas': pandas.__version__,
        'jsonschema': importlib.metadata.version('jsonschema'),
        'shims': shims,
        'files': [],
    }
    warmed = set()
    for vendor_name, rounds, path in plan:
        entry = {'path': path, 'vendor': vendor_name}
        result['files'].append(entry)
        try:
            entry['bytes'] = os.path.getsize(path)
            vendor = Vendor[vendor_name]
            if vendor not in warmed:
                serialize_and_validate_allotrope(allotrope_model_from_file(path, vendor))
                warmed.add(vendor)
            entry['rounds'] = []
            for _ in range(int(rounds)):
                model, model_s, model_cpu = timed(lambda: allotrope_model_from_file(path, vendor))
                document, validate_s, validate_cpu = timed(lambda: serialize_and_validate_allotrope(model))
                entry.setdefault('measurements', measurements(document))
                entry['rounds'].append({'modelSeconds': model_s, 'modelCpuSeconds': model_cpu, 'validateSeconds': validate_s, 'validateCpuSeconds': validate_cpu})
        except Exception as e:  # noqa: BLE001 (the file's row says why)
            entry['error'] = f'{type(e).__name__}: {str(e)[:300]}'
    json.dump(result, sys.stdout)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()

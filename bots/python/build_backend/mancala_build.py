"""A PEP 517 build backend for the kit, standard library only.

Why: with setuptools as the backend, `pip install bots/python` first downloads setuptools, so
the kit (itself standard library only) could not be installed on a machine without a package
index. This backend writes the one pure-Python wheel the kit needs (and an editable one for
`pip install -e`) from the `[project]` table of pyproject.toml.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "mancala_bot"


def _project():
    """The `key = "value"` lines of pyproject.toml's [project] table (all the kit uses)."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    table = re.search(r"^\[project\]\n(.*?)(?=^\[|\Z)", text, re.S | re.M).group(1)
    fields = dict(re.findall(r'^([\w-]+)\s*=\s*"([^"]*)"', table, re.M))
    fields["license"] = re.search(r'^license\s*=\s*\{\s*text\s*=\s*"([^"]*)"', table, re.M).group(1)
    return fields


def _metadata():
    p = _project()
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    head = [
        "Metadata-Version: 2.1",
        "Name: " + p["name"],
        "Version: " + p["version"],
        "Summary: " + p["description"],
        "Requires-Python: " + p["requires-python"],
        "License: " + p["license"],
        "Description-Content-Type: text/markdown",
    ]
    return "\n".join(head) + "\n\n" + readme


def _dist_info():
    p = _project()
    return "%s-%s.dist-info" % (p["name"].replace("-", "_"), p["version"])


def _write_wheel(directory, files):
    """Writes `files` ({archive name: bytes}) and the dist-info as a py3-none-any wheel."""
    p = _project()
    dist_info = _dist_info()
    files = dict(files)
    files[dist_info + "/METADATA"] = _metadata().encode()
    files[dist_info + "/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: mancala_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    ).encode()
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (name, digest, len(data)))
    record.append(dist_info + "/RECORD,,")
    files[dist_info + "/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = "%s-%s-py3-none-any.whl" % (p["name"].replace("-", "_"), p["version"])
    with zipfile.ZipFile(os.path.join(directory, wheel), "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    return wheel


def _sources():
    """The package's modules, as paths relative to the kit's folder."""
    names = sorted(os.listdir(os.path.join(ROOT, PACKAGE)))
    return [PACKAGE + "/" + n for n in names if n.endswith(".py")]


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = {}
    for rel in _sources():
        with open(os.path.join(ROOT, rel), "rb") as f:
            files[rel] = f.read()
    return _write_wheel(wheel_directory, files)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """A wheel whose .pth file puts this checkout on the path: edits take effect at once."""
    return _write_wheel(wheel_directory, {PACKAGE + ".pth": (ROOT + "\n").encode()})


def build_sdist(sdist_directory, config_settings=None):
    p = _project()
    base = "%s-%s" % (p["name"].replace("-", "_"), p["version"])
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as tar:
        for rel in ["pyproject.toml", "README.md", "build_backend/mancala_build.py"] + _sources():
            tar.add(os.path.join(ROOT, rel), arcname=base + "/" + rel)
        info = tarfile.TarInfo(base + "/PKG-INFO")
        data = _metadata().encode()
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return name

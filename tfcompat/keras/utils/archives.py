"""Safe tar and zip extraction for `get_file(extract=True)` / `untar=True`.

An archive is data, never instructions: no member may land outside the target directory
(absolute names, `..` components, links pointing out, or paths through a link), and no
member may create device files or set-uid bits. tarfile's 'data' filter (PEP 706) decides
for tar members; an unsafe member is skipped with a warning, as tf_keras skips escaping
paths, and the rest is extracted. Zip members are checked the same way (zipfile creates no
links, so the path check suffices). If extraction fails midway, what it created is
removed, and only that: tf_keras deletes the whole target directory (the cache) there.
"""

from __future__ import annotations

import os
import shutil
import tarfile
import warnings
import zipfile
from typing import Any, Iterator, List, Sequence, Union

__all__ = ["extract_archive"]


def _inside(path: str, base: str) -> bool:
    base = os.path.realpath(base)
    target = os.path.realpath(os.path.join(base, path))
    return os.path.commonpath([base, target]) == base


def _safe_tar_members(archive: tarfile.TarFile, dest: str) -> Iterator[tarfile.TarInfo]:
    for member in archive:
        try:
            safe = tarfile.data_filter(member, dest)
        except tarfile.FilterError:
            safe = None
        if safe is None or not _inside(member.name, dest):
            warnings.warn(f"Skipping invalid path during archive extraction: '{member.name}'.")
            continue
        yield safe


def _extract_tar(file_path: str, dest: str) -> None:
    with tarfile.open(file_path) as archive:
        # `filter` re-checks every member at write time (after earlier members are on
        # disk), which catches a path that only escapes through a link extracted before it.
        archive.extractall(dest, members=_safe_tar_members(archive, dest), filter="data")


def _extract_zip(file_path: str, dest: str) -> None:
    with zipfile.ZipFile(file_path) as archive:
        for info in archive.infolist():
            if not _inside(info.filename, dest):
                warnings.warn(
                    f"Skipping invalid path during archive extraction: '{info.filename}'.")
                continue
            archive.extract(info, dest)


def _remove_new_entries(dest: str, before: set) -> None:
    if not os.path.isdir(dest):
        return
    for name in set(os.listdir(dest)) - before:
        path = os.path.join(dest, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.remove(path)


def extract_archive(file_path: Any, path: Any = ".",
                    archive_format: Union[str, Sequence[str], None] = "auto") -> bool:
    """Extract a tar (plain, gz, bz2, xz) or zip archive into `path`; whether one matched.

    `archive_format`: 'auto' (tar then zip), 'tar', 'zip', a list of those, or None / an
    empty list (extract nothing, return False).
    """
    if archive_format is None:
        return False
    if archive_format == "auto":
        archive_format = ["tar", "zip"]
    if isinstance(archive_format, str):
        archive_format = [archive_format]
    file_path, path = os.fspath(file_path), os.fspath(path)
    for kind in archive_format:
        if kind == "tar" and tarfile.is_tarfile(file_path):
            extract = _extract_tar
        elif kind == "zip" and zipfile.is_zipfile(file_path):
            extract = _extract_zip
        else:
            continue
        os.makedirs(path, exist_ok=True)
        before = set(os.listdir(path))
        try:
            extract(file_path, path)
        except BaseException:
            _remove_new_entries(path, before)
            raise
        return True
    return False

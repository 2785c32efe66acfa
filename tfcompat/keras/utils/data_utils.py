"""`tf.keras.utils.get_file`, `validate_file` and `Sequence`.

`get_file` keeps tf_keras's cache layout, so files tf_keras downloaded are found here and
vice versa: `<cache_dir>/<cache_subdir>/<fname>`, `cache_dir` defaulting to `~/.keras`
(`$KERAS_HOME` when set, as Keras 3 and tf_keras's own config file do), falling back to
`/tmp/.keras` when that directory is not writable. A file is downloaded only when absent or
when its hash does not match `file_hash` ('auto' picks sha256 for a 64-digit hash, else
md5). Two deliberate hardenings over tf_keras: a download lands in a temporary file that
is renamed into place only once complete and verified (a failed call leaves the cache as
it was, where tf_keras may leave a corrupt file or delete the old one), and extraction
(`archives.extract_archive`) never writes outside the target directory.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Iterator, Optional

from .archives import extract_archive

__all__ = ["get_file", "validate_file", "Sequence"]

_CHUNK = 65535


def _path_string(path: Any) -> Any:
    return os.fspath(path) if isinstance(path, os.PathLike) else path


def _cache_root(cache_dir: Optional[str]) -> str:
    if cache_dir is None:
        cache_dir = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"),
                                                                 ".keras")
    root = os.path.expanduser(cache_dir)
    # As tf_keras: a directory that is missing or read-only means the shared /tmp cache.
    if not os.access(root, os.W_OK):
        root = os.path.join("/tmp", ".keras")
    return root


def _hasher(algorithm: str, file_hash: Optional[str] = None) -> Any:
    if algorithm == "sha256":
        return hashlib.sha256()
    if algorithm == "auto" and file_hash is not None and len(file_hash) == 64:
        return hashlib.sha256()
    return hashlib.md5()  # tf_keras's legacy default for anything else


def _hash_file(fpath: str, hasher: Any, chunk_size: int = _CHUNK) -> str:
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def validate_file(fpath: Any, file_hash: str, algorithm: str = "auto",
                  chunk_size: int = _CHUNK) -> bool:
    """`keras.utils.data_utils.validate_file`: whether the file's hash equals `file_hash`.

    `algorithm` is 'sha256', 'md5' or 'auto' (sha256 when `file_hash` has 64 digits,
    md5 otherwise).
    """
    digest = _hash_file(_path_string(fpath), _hasher(algorithm, file_hash), chunk_size)
    return str(digest) == str(file_hash)


def _download(origin: str, fpath: str, file_hash: Optional[str], hash_algorithm: str) -> None:
    """Fetch `origin` into `fpath` atomically, raising tf_keras's errors."""
    print(f"Downloading data from {origin}")
    error_msg = "URL fetch failure on {}: {} -- {}"
    fd, partial = tempfile.mkstemp(prefix=os.path.basename(fpath) + ".",
                                   suffix=".part", dir=os.path.dirname(fpath))
    try:
        with os.fdopen(fd, "wb") as out:
            try:
                with urllib.request.urlopen(origin) as response:
                    for chunk in iter(lambda: response.read(8192), b""):
                        out.write(chunk)
            except urllib.error.HTTPError as e:  # before URLError: it is a subclass
                raise Exception(error_msg.format(origin, e.code, e.msg)) from e
            except urllib.error.URLError as e:
                raise Exception(error_msg.format(origin, e.errno, e.reason)) from e
        if file_hash is not None and not validate_file(partial, file_hash, hash_algorithm):
            raise ValueError(
                f"Incomplete or corrupted file detected. The {hash_algorithm} file hash "
                f"does not match the provided value of {file_hash}.")
        os.replace(partial, fpath)
    except BaseException:
        if os.path.exists(partial):
            os.remove(partial)
        raise


def get_file(fname: Any = None, origin: Optional[str] = None, untar: bool = False,
             md5_hash: Optional[str] = None, file_hash: Optional[str] = None,
             cache_subdir: str = "datasets", hash_algorithm: str = "auto",
             extract: bool = False, archive_format: Any = "auto",
             cache_dir: Optional[str] = None) -> str:
    """`tf.keras.utils.get_file`: download `origin` into the Keras cache unless present.

    Returns the file's path, `<cache_dir>/<cache_subdir>/<fname>` (an absolute `fname` or
    `cache_subdir` is used as is). `fname=None` takes the last component of the URL's
    path. `untar=True` (deprecated) caches `<fname>.tar.gz`, extracts it next to itself
    once, and returns the extracted path `<fname>` (`.tar.gz` stripped from `fname`).
    `extract=True` extracts tar/zip archives (`archive_format`: 'auto', 'tar', 'zip',
    a list, or None) into the cache directory on every call. `md5_hash` is the
    deprecated spelling of `file_hash` with `hash_algorithm='md5'`.

    Errors, as tf_keras: `ValueError` without `origin` or when no file name can be
    derived, or when a fresh download's hash does not match; a plain `Exception`
    "URL fetch failure on <origin>: <code or errno> -- <reason>" when fetching fails.
    """
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if md5_hash is not None and file_hash is None:
        file_hash = md5_hash
        hash_algorithm = "md5"
    datadir = os.path.join(_cache_root(cache_dir), cache_subdir)
    os.makedirs(datadir, exist_ok=True)

    fname = _path_string(fname)
    if not fname:
        fname = os.path.basename(urllib.parse.urlsplit(origin).path)
        if not fname:
            raise ValueError(
                f"Can't parse the file name from the origin provided: '{origin}'."
                "Please specify the `fname` as the input param.")

    if untar:
        if fname.endswith(".tar.gz"):
            fname = str(pathlib.Path(fname).with_suffix("").with_suffix(""))
        untar_fpath = os.path.join(datadir, fname)
        fpath = untar_fpath + ".tar.gz"
    else:
        fpath = os.path.join(datadir, fname)

    download = not os.path.exists(fpath)
    if not download and file_hash is not None and not validate_file(fpath, file_hash,
                                                                    hash_algorithm):
        print("A local file was found, but it seems to be incomplete or outdated because "
              f"the {hash_algorithm} file hash does not match the original value of "
              f"{file_hash} so we will re-download the data.")
        download = True
    if download:
        _download(origin, fpath, file_hash, hash_algorithm)

    if untar:
        if not os.path.exists(untar_fpath):
            extract_archive(fpath, datadir, archive_format="tar")
        return untar_fpath
    if extract:
        extract_archive(fpath, datadir, archive_format)
    return fpath


class Sequence:
    """`tf.keras.utils.Sequence`: a dataset as an indexable list of batches.

    Subclasses implement `__getitem__` (batch `index`, complete) and `__len__` (the number
    of batches); `on_epoch_end` runs after each epoch (shuffle there). Iterating yields
    batches `0 .. len - 1` once. As in tf_keras, the base class is not an ABC: it can be
    instantiated, and the unimplemented methods raise `NotImplementedError`.
    """

    def __getitem__(self, index: int) -> Any:
        """Batch number `index`."""
        raise NotImplementedError

    def __len__(self) -> int:
        """The number of batches in the sequence."""
        raise NotImplementedError

    def on_epoch_end(self) -> None:
        """Called at the end of every epoch; does nothing by default."""

    def __iter__(self) -> Iterator[Any]:
        """The batches in order, each fetched when reached."""
        for i in range(len(self)):
            yield self[i]

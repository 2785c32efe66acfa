"""`tf.keras.utils.get_file` / `validate_file`: tf_keras's cache layout, hashes, errors, and
extraction that never writes outside its directory. Origins are file:// URLs in temp dirs;
`KERAS_HOME` and `HOME` point into tmp_path, so neither the network nor ~ is touched.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import tarfile
import urllib.error
import uuid
import zipfile

import pytest

import tfcompat as tf

get_file = tf.keras.utils.get_file
validate_file = tf.keras.utils.validate_file


@pytest.fixture
def home(tmp_path, monkeypatch):
    keras_home = tmp_path / "keras_home"
    keras_home.mkdir()
    monkeypatch.setenv("KERAS_HOME", str(keras_home))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return keras_home


@pytest.fixture
def source(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    return src


def _serve(source, name: str, data: bytes) -> str:
    path = source / name
    path.write_bytes(data)
    return path.as_uri()


def test_downloads_once_into_the_cache(home, source):
    url = _serve(source, "a.txt", b"hello")
    path = get_file("a.txt", origin=url)
    assert path == os.path.join(str(home), "datasets", "a.txt")
    assert open(path, "rb").read() == b"hello"
    (source / "a.txt").unlink()  # present in the cache: no second download
    assert get_file("a.txt", origin=url) == path
    assert sorted(os.listdir(home / "datasets")) == ["a.txt"]  # no temporary left


def test_fname_from_url_and_errors(home, source):
    url = _serve(source, "b.bin", b"x")
    assert get_file(origin=url) == os.path.join(str(home), "datasets", "b.bin")
    with pytest.raises(ValueError, match=r'^Please specify the "origin" argument \(URL of the '
                                         r"file to download\)\.$"):
        get_file("b.bin")
    with pytest.raises(ValueError, match="^Can't parse the file name from the origin provided: "
                                         "'file:///nothing/'.Please specify the `fname` as the "
                                         "input param.$"):
        get_file(origin="file:///nothing/")


def test_cache_dir_subdir_and_pathlike(tmp_path, home, source):
    url = _serve(source, "c.txt", b"c")
    mine = tmp_path / "mine"
    mine.mkdir()
    assert get_file("c.txt", origin=url, cache_dir=str(mine),
                    cache_subdir="sub") == str(mine / "sub" / "c.txt")
    absolute = tmp_path / "abs_sub"
    assert get_file("c.txt", origin=url, cache_subdir=str(absolute)) == str(
        absolute / "c.txt")
    import pathlib
    assert get_file(pathlib.Path("c2.txt"), origin=url) == str(home / "datasets" / "c2.txt")


def test_unwritable_cache_dir_falls_back_to_tmp(tmp_path, source):
    url = _serve(source, "d.txt", b"d")
    subdir = f"tfcompat-test-{uuid.uuid4().hex}"
    try:
        path = get_file("d.txt", origin=url, cache_dir=str(tmp_path / "missing"),
                        cache_subdir=subdir)
        assert path == os.path.join("/tmp", ".keras", subdir, "d.txt")
    finally:
        shutil.rmtree(os.path.join("/tmp", ".keras", subdir), ignore_errors=True)


def test_hashes(home, source):
    data = b"payload"
    sha, md5 = hashlib.sha256(data).hexdigest(), hashlib.md5(data).hexdigest()
    url = _serve(source, "e.bin", data)
    path = get_file("e.bin", origin=url, file_hash=sha)
    assert validate_file(path, sha) and validate_file(path, md5)  # 'auto' by length
    assert validate_file(path, sha, algorithm="sha256") and validate_file(path, md5, "md5")
    assert not validate_file(path, sha, algorithm="md5")
    assert not validate_file(path, md5[:-1] + ("0" if md5[-1] != "0" else "1"))
    assert get_file("e.bin", origin=url, md5_hash=md5) == path


def test_stale_cache_is_redownloaded(home, source, capsys):
    data = b"fresh"
    url = _serve(source, "f.bin", data)
    (home / "datasets").mkdir()
    (home / "datasets" / "f.bin").write_bytes(b"stale")
    sha = hashlib.sha256(data).hexdigest()
    path = get_file("f.bin", origin=url, file_hash=sha)
    assert open(path, "rb").read() == data
    out = capsys.readouterr().out
    assert "A local file was found, but it seems to be incomplete or outdated because the auto " \
           f"file hash does not match the original value of {sha} so we will re-download" in out
    assert f"Downloading data from {url}" in out


def test_corrupt_download_raises_and_leaves_the_cache_unchanged(home, source):
    url = _serve(source, "g.bin", b"corrupt")
    (home / "datasets").mkdir()
    (home / "datasets" / "g.bin").write_bytes(b"old")
    want = hashlib.sha256(b"good").hexdigest()
    with pytest.raises(ValueError, match="^Incomplete or corrupted file detected. The auto file "
                                         f"hash does not match the provided value of {want}.$"):
        get_file("g.bin", origin=url, file_hash=want)
    assert os.listdir(home / "datasets") == ["g.bin"]
    assert (home / "datasets" / "g.bin").read_bytes() == b"old"


def test_url_errors_are_tf_keras_exceptions(home, monkeypatch):
    with pytest.raises(Exception, match=r"^URL fetch failure on file:///nope/h.bin: None -- "
                                        r"\[Errno 2\] No such file or directory: '/nope/h.bin'$"):
        get_file("h.bin", origin="file:///nope/h.bin")

    def http_404(url, *a, **k):
        raise urllib.error.HTTPError(url, 404, "Not Found", {}, io.BytesIO())

    monkeypatch.setattr("urllib.request.urlopen", http_404)
    with pytest.raises(Exception) as info:
        get_file("h.bin", origin="https://example.invalid/h.bin")
    assert type(info.value) is Exception
    assert str(info.value) == "URL fetch failure on https://example.invalid/h.bin: 404 -- Not Found"
    assert os.listdir(home / "datasets") == []


def _tar_gz(path, members):
    with tarfile.open(path, "w:gz") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)


def _file(name, data=b"ok"):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def _link(name, target, kind=tarfile.SYMTYPE):
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info, None


def test_untar_extracts_once_and_returns_the_directory(home, source):
    tarball = source / "pack.tar.gz"
    _tar_gz(tarball, [_file("pack/a.txt", b"A"), _file("pack/sub/b.txt", b"B")])
    path = get_file("pack.tar.gz", origin=tarball.as_uri(), untar=True)
    assert path == str(home / "datasets" / "pack")
    assert (home / "datasets" / "pack.tar.gz").exists()
    assert (home / "datasets" / "pack" / "sub" / "b.txt").read_bytes() == b"B"
    (home / "datasets" / "pack" / "a.txt").unlink()  # extracted already: not redone
    get_file("pack", origin=tarball.as_uri(), untar=True)
    assert not (home / "datasets" / "pack" / "a.txt").exists()


def test_extract_zip_and_tar(home, source):
    zpath = source / "z.zip"
    with zipfile.ZipFile(zpath, "w") as z:
        z.writestr("zdir/one.txt", "1")
    path = get_file("z.zip", origin=zpath.as_uri(), extract=True)
    assert path == str(home / "datasets" / "z.zip")
    assert (home / "datasets" / "zdir" / "one.txt").read_text() == "1"
    tpath = source / "t.tar.gz"
    _tar_gz(tpath, [_file("tdir/two.txt", b"2")])
    get_file("t.tar.gz", origin=tpath.as_uri(), extract=True, archive_format="zip")
    assert not (home / "datasets" / "tdir").exists()  # not a zip: nothing extracted
    get_file("t.tar.gz", origin=tpath.as_uri(), extract=True, archive_format="tar")
    assert (home / "datasets" / "tdir" / "two.txt").read_bytes() == b"2"


def test_hostile_tar_cannot_write_outside(tmp_path, home, source):
    outside = tmp_path / "outside"
    outside.mkdir()
    tpath = source / "evil.tar.gz"
    _tar_gz(tpath, [
        _file("good/keep.txt", b"keep"),
        _file("../escaped.txt"),
        _file(str(outside / "absolute.txt")),
        _link("good/out_link", str(outside)),            # a link leading out ...
        _file("good/out_link/through_link.txt"),         # ... and a file written through it
        _link("good/rel_link", "../../../outside"),
        _link("good/hard", str(outside / "victim"), tarfile.LNKTYPE),
        _file("good/dev_ok.txt"),
    ])
    (outside / "victim").write_bytes(b"victim")
    with pytest.warns(UserWarning, match="Skipping invalid path during archive extraction"):
        get_file("evil.tar.gz", origin=tpath.as_uri(), extract=True)
    datasets = home / "datasets"
    assert (datasets / "good" / "keep.txt").read_bytes() == b"keep"
    assert (datasets / "good" / "dev_ok.txt").exists()
    assert sorted(os.listdir(outside)) == ["victim"]
    assert (outside / "victim").read_bytes() == b"victim"
    assert not (tmp_path / "keras_home" / "escaped.txt").exists()
    # The link was refused; the later member made a plain directory of that name inside.
    assert not os.path.islink(datasets / "good" / "out_link")
    assert not os.path.islink(datasets / "good" / "rel_link")


def test_hostile_zip_cannot_write_outside(tmp_path, home, source):
    zpath = source / "evil.zip"
    with zipfile.ZipFile(zpath, "w") as z:
        z.writestr("../escaped.txt", "x")
        z.writestr("fine.txt", "y")
    with pytest.warns(UserWarning, match="Skipping invalid path"):
        get_file("evil.zip", origin=zpath.as_uri(), extract=True)
    assert (home / "datasets" / "fine.txt").read_text() == "y"
    assert not (home / "escaped.txt").exists()
    assert not (home / "datasets" / "escaped.txt").exists()


def test_failed_extraction_removes_only_what_it_created(home, source):
    (home / "datasets").mkdir()
    (home / "datasets" / "precious.txt").write_text("keep me")
    tpath = source / "broken.tar.gz"
    _tar_gz(tpath, [_file("newdir/a.txt", b"A" * 5000), _file("newdir/b.txt", b"B" * 5000)])
    raw = tpath.read_bytes()
    import gzip
    tar_bytes = gzip.decompress(raw)
    (source / "broken.tar").write_bytes(tar_bytes[:1024 + 512 + 2000])  # cut inside b.txt
    with pytest.raises(tarfile.TarError):
        get_file("broken.tar", origin=(source / "broken.tar").as_uri(), extract=True)
    assert sorted(os.listdir(home / "datasets")) == ["broken.tar", "precious.txt"]

"""The `checkpoint` state file: a `CheckpointState` in protobuf text format.

TF writes it with `text_format.MessageToString` (one `name: value` line per
field in number order, repeated fields one line per element, strings in
double quotes with C escapes for ASCII control characters, quotes and
backslashes and non-ASCII left as UTF-8, doubles as Python's `str`) and
reads it with `text_format.Merge`. `format_text` / `write_state` produce
the same bytes; `parse_text` / `read_state` accept what `Merge` accepts for
these messages: any field order, single or double quotes, adjacent string
literals, octal/hex/named escapes, `#` comments, `,`/`;` separators, list
syntax for repeated scalars, `inf`/`nan`, nested messages in `{}` or `<>`.
"""

from __future__ import annotations

import math
import os
import re
import secrets
import struct
import warnings
from typing import Any, Optional

from .protos import CheckpointState
from .wire import Field, Message

__all__ = ["read_state", "write_state", "format_text", "parse_text", "TextFormatError"]


class TextFormatError(ValueError):
    """Text that is not a valid text-format message of the expected type."""


# -- writing -------------------------------------------------------------------

_ESCAPES = {i: "\\%03o" % i for i in range(32)}
_ESCAPES.update({127: "\\177", ord("\t"): "\\t", ord("\n"): "\\n", ord("\r"): "\\r",
                 ord('"'): '\\"', ord("'"): "\\'", ord("\\"): "\\\\"})
_BYTE_ESCAPES = {i: chr(i) for i in range(256)}
_BYTE_ESCAPES.update(_ESCAPES)
_BYTE_ESCAPES.update({i: "\\%03o" % i for i in range(128, 256)})


def _format_scalar(f: Field, value: Any) -> str:
    if f.kind == "string":
        return '"' + value.translate(_ESCAPES) + '"'
    if f.kind == "bytes":
        return '"' + "".join(_BYTE_ESCAPES[b] for b in value) + '"'
    if f.kind == "bool":
        return "true" if value else "false"
    if f.kind == "float":
        return "nan" if math.isnan(value) else _shortest_float(value)
    return str(value)  # ints; doubles as Python's str (protobuf's text_format does the same)


def _shortest_float(value: float) -> str:
    # protobuf's ToShortestFloat: the fewest digits (6 to 9) that round-trip through float32.
    as_f32 = struct.unpack("<f", struct.pack("<f", value))[0]
    for digits in range(6, 10):
        s = "%.*g" % (digits, value)
        if struct.unpack("<f", struct.pack("<f", float(s)))[0] == as_f32:
            return str(float(s))
    return str(value)


def format_text(msg: Message, indent: int = 0) -> str:
    """`msg` in protobuf text format, as `text_format.MessageToString` writes it."""
    pad = " " * indent
    lines = []
    for f in msg._SORTED:
        value = getattr(msg, f.name)
        values = value if f.repeated else [value]
        if not f.repeated:
            if value is None or (not f.presence and f.kind != "message" and value == f.default()
                                 and not (isinstance(value, float) and math.copysign(1, value) < 0)):
                continue
        for v in values:
            if f.kind == "message":
                lines.append(f"{pad}{f.name} {{\n{format_text(v, indent + 2)}{pad}}}\n")
            else:
                lines.append(f"{pad}{f.name}: {_format_scalar(f, v)}\n")
    return "".join(lines)


# -- parsing -------------------------------------------------------------------

_TOKEN = re.compile(r"""
    (?P<ws>\s+|\#[^\n]*)
  | (?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<num>[-+]?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[fF]?|(?i:inf(?:inity)?|nan)))
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>[:{}<>\[\],;])
""", re.VERBOSE | re.DOTALL)

_SIMPLE_ESCAPES = {"n": 10, "t": 9, "r": 13, '"': 34, "'": 39, "\\": 92, "a": 7, "b": 8, "f": 12,
                   "v": 11, "?": 63}


def _unescape(body: str) -> bytes:
    out = bytearray()
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        i += 1
        if i >= n:
            raise TextFormatError("string ends with a lone backslash")
        c = body[i]
        if c in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[c])
            i += 1
        elif c in "01234567":
            j = i
            while j < n and j < i + 3 and body[j] in "01234567":
                j += 1
            v = int(body[i:j], 8)
            if v > 255:
                raise TextFormatError(f"octal escape \\{body[i:j]} out of range")
            out.append(v)
            i = j
        elif c in "xX":
            j = i + 1
            while j < n and j < i + 3 and body[j] in "0123456789abcdefABCDEF":
                j += 1
            if j == i + 1:
                raise TextFormatError("\\x escape without hex digits")
            out.append(int(body[i + 1:j], 16))
            i = j
        else:
            raise TextFormatError(f"invalid escape \\{c}")
    return bytes(out)


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise TextFormatError(f"unexpected character {text[pos]!r} at offset {pos}")
        pos = m.end()
        if m.lastgroup != "ws":
            tokens.append((m.lastgroup, m.group()))
    return tokens


_INT_KINDS = {"int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32", "fixed64",
              "sfixed32", "sfixed64", "enum"}


def _scalar(f: Field, tokens: list[tuple[str, str]], i: int) -> tuple[Any, int]:
    if i >= len(tokens):
        raise TextFormatError(f"missing value for field {f.name!r}")
    kind, text = tokens[i]
    if f.kind in ("string", "bytes"):
        if kind != "str":
            raise TextFormatError(f"field {f.name!r} needs a quoted string, got {text!r}")
        raw = b""
        while i < len(tokens) and tokens[i][0] == "str":  # adjacent literals concatenate
            raw += _unescape(tokens[i][1][1:-1])
            i += 1
        if f.kind == "bytes":
            return raw, i
        try:
            return raw.decode("utf-8"), i
        except UnicodeDecodeError:
            raise TextFormatError(f"field {f.name!r} is not valid UTF-8") from None
    if f.kind == "bool":
        if text in ("true", "True", "t", "1"):
            return True, i + 1
        if text in ("false", "False", "f", "0"):
            return False, i + 1
        raise TextFormatError(f"field {f.name!r} needs true or false, got {text!r}")
    if kind != "num":
        raise TextFormatError(f"field {f.name!r} needs a number, got {text!r}")
    if f.kind in ("float", "double"):
        t = text.lower().rstrip("f") if not text.lower().lstrip("+-").startswith("inf") else text.lower()
        t = t.replace("infinity", "inf")
        try:
            return float(int(t, 16)) if "0x" in t else float(t), i + 1
        except ValueError:
            raise TextFormatError(f"field {f.name!r}: bad number {text!r}") from None
    try:
        return int(text, 0), i + 1
    except ValueError:
        raise TextFormatError(f"field {f.name!r} needs an integer, got {text!r}") from None


def _parse_into(msg: Message, tokens: list[tuple[str, str]], i: int, close: Optional[str], depth: int) -> int:
    if depth > 100:
        raise TextFormatError("message nesting too deep")
    while i < len(tokens):
        kind, text = tokens[i]
        if close is not None and text == close:
            return i + 1
        if kind != "ident":
            raise TextFormatError(f"expected a field name, got {text!r}")
        f = msg._BY_NAME.get(text)
        if f is None:
            raise TextFormatError(f"{type(msg).__name__} has no field named {text!r}")
        i += 1
        has_colon = i < len(tokens) and tokens[i][1] == ":"
        if has_colon:
            i += 1
        if f.kind == "message":
            if i >= len(tokens) or tokens[i][1] not in "{<":
                raise TextFormatError(f"field {f.name!r} needs a {{ ... }} message")
            end = "}" if tokens[i][1] == "{" else ">"
            sub = f.message() if f.repeated or getattr(msg, f.name) is None else getattr(msg, f.name)
            i = _parse_into(sub, tokens, i + 1, end, depth + 1)
            if f.repeated:
                getattr(msg, f.name).append(sub)
            else:
                setattr(msg, f.name, sub)
        else:
            if not has_colon:
                raise TextFormatError(f"expected ':' after field {f.name!r}")
            if i < len(tokens) and tokens[i][1] == "[" and f.repeated:
                i += 1
                while i < len(tokens) and tokens[i][1] != "]":
                    value, i = _scalar(f, tokens, i)
                    getattr(msg, f.name).append(value)
                    if i < len(tokens) and tokens[i][1] == ",":
                        i += 1
                if i >= len(tokens):
                    raise TextFormatError(f"unterminated list for field {f.name!r}")
                i += 1
            else:
                value, i = _scalar(f, tokens, i)
                if f.repeated:
                    getattr(msg, f.name).append(value)
                else:
                    setattr(msg, f.name, value)  # Merge semantics: the last value wins
        if i < len(tokens) and tokens[i][1] in ",;":
            i += 1
    if close is not None:
        raise TextFormatError(f"missing {close!r}")
    return i


def parse_text(text: str, cls: type = CheckpointState) -> Message:
    """Parses text format into a new `cls` (`text_format.Merge` semantics); `TextFormatError` if bad."""
    msg = cls()
    _parse_into(msg, _tokenize(text), 0, None, 0)
    return msg


# -- the state file --------------------------------------------------------------

def _state_path(directory: str, latest_filename: str) -> str:
    return os.path.join(os.fspath(directory), latest_filename)


def read_state(directory: str, latest_filename: str = "checkpoint") -> Optional[CheckpointState]:
    """The `CheckpointState` in `directory/latest_filename`, as TF's `get_checkpoint_state`.

    `None` when the file does not exist, or (with a warning, as TF logs)
    when it cannot be read or parsed. Relative paths are joined to
    `directory`, as TF does. `ValueError` if it names no
    `model_checkpoint_path`.
    """
    directory = os.fspath(directory)
    path = _state_path(directory, latest_filename)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        warnings.warn(f"{path}: {e}: Checkpoint ignored", RuntimeWarning, stacklevel=2)
        return None
    try:
        state = parse_text(data.decode("utf-8"))
    except (TextFormatError, UnicodeDecodeError) as e:
        warnings.warn(f"{path}: ParseError: {e}: Checkpoint ignored", RuntimeWarning, stacklevel=2)
        return None
    if not state.model_checkpoint_path:
        raise ValueError("Invalid checkpoint state loaded from " + directory)
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(directory, state.model_checkpoint_path)
    state.all_model_checkpoint_paths = [
        p if os.path.isabs(p) else os.path.join(directory, p) for p in state.all_model_checkpoint_paths]
    return state


def write_state(directory: str, state: CheckpointState, latest_filename: str = "checkpoint") -> None:
    """Writes `state` (paths as given) to `directory/latest_filename`, atomically.

    The text goes to a temporary file in the same directory, is fsynced and
    renamed over the old file, so a reader sees the old state or the new one,
    never a mix.
    """
    directory = os.fspath(directory)
    if directory:
        os.makedirs(directory, exist_ok=True)
    path = _state_path(directory, latest_filename)
    tmp = f"{path}.tmp{secrets.token_hex(16)}"
    data = format_text(state).encode("utf-8")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except FileNotFoundError:
            pass
        raise
    try:
        dfd = os.open(directory or ".", os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass

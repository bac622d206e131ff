"""skillwire from Python: the WebAssembly component (`skillwire component --out DIR`) run by
wasmtime-py's component API, with skills from a folder or any object with the source methods.

    from skillwire_component import Skillwire, FolderSource

    sw = Skillwire("dist/skillwire.wasm", [FolderSource("examples/skills")])
    injection = sw.inject("write release notes for 2.0")
    print(injection["user_message"])

Results are plain dicts and lists in the core's JSON spelling (snake_case keys, enum values
in kebab-case), so they read like the CLI's `--json` output. A call the engine refuses
raises `SkillwireError` with the WIT error's case as `code` (`message_too_large`,
`unknown_skill`, ...) and its data as `data`.

Sources answer `list()`, `read(location)` and optionally `list_files(location)` and
`read_file(location, path, max_bytes)`; an exception they raise is caught here and handed to
the engine as the source's `err` (a skipped skill, `body-unavailable`, a file error), as the
WIT's failure contract asks of hosts. `list()` gives locations, or dicts with `location` and
optionally `text`, `origin`, `stamp` (a string that changes whenever the SKILL.md does:
`refresh()` reads again only the entries whose stamp changed) and `id` (the skill's id in the
host's own store, carried by matches and decisions; without one, its name, or `name@origin`
for a skill from an origin); a host that learns of one edited or deleted SKILL.md (a file
watcher) hands it to `update(source, entry)` or `remove(source, location)`, which take it
without listing the sources. `read` raises `Refused` for a
SKILL.md it refuses for what it is (too large, not UTF-8, not a regular file): that lasts
until the file changes, so a refresh does not read it again while its stamp holds. A failure this class cannot contain (a trap in the
guest: fuel, memory) leaves the instance unusable; `rebuild()` instantiates the component
again and rebuilds the engine over the same sources.
"""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import wasmtime
from wasmtime import component as wc

PACKAGE = "skillwire:engine"
VERSION = "0.1.0"
API = f"{PACKAGE}/api@{VERSION}"
SOURCE = f"{PACKAGE}/skill-source@{VERSION}"

# What a file-error case is called in the core (the other errors keep their case's name).
FILE_ERROR_CODES = {
    "too-large": "file_too_large",
    "unavailable": "file_unavailable",
    "blocked": "file_blocked",
}


class Refused(Exception):
    """A source's refusal of a SKILL.md for what it is (too large, not UTF-8 text, not a
    regular file), which lasts until the file changes: the WIT `read-error.refused`."""


class SkillwireError(Exception):
    """A call the engine refused: `code` names the WIT error case, `data` holds its payload."""

    def __init__(self, code: str, data: Any):
        super().__init__(f"{code}: {data!r}")
        self.code = code
        self.data = data


def to_plain(value: Any) -> Any:
    """A WIT value as plain Python: records as dicts with snake_case keys, tagged variants
    as `{"type": case, "value": payload}`, tuples as lists, the rest as they are."""
    if isinstance(value, wc.Record):
        return {key.replace("-", "_"): to_plain(field) for key, field in vars(value).items()}
    if isinstance(value, wc.Variant):
        return {"type": value.tag, "value": to_plain(value.payload)}
    if isinstance(value, (list, tuple)):
        return [to_plain(item) for item in value]
    if isinstance(value, (bytes, bytearray)):
        return list(value)
    return value


def record(**fields: Any) -> wc.Record:
    """A WIT record from keyword arguments (snake_case names, written kebab-case)."""
    out = wc.Record()
    for key, field in fields.items():
        setattr(out, key.replace("_", "-"), field)
    return out


def entry_record(entry: str | dict) -> wc.Record:
    """A source's entry (a location, or a dict with `location` and optionally `text`,
    `origin`, `stamp`, `id`) as the WIT `skill-entry`. A stamp stands for the text: one
    that is not a string could keep a changed entry from being read, so it is refused
    (`TypeError`), as is an id that is not one."""
    entry = {"location": entry} if isinstance(entry, str) else entry
    for key in ("stamp", "id"):
        if entry.get(key) is not None and not isinstance(entry[key], str):
            raise TypeError(f"{entry['location']}: {key} is {type(entry[key]).__name__}, not a string")
    return record(
        location=entry["location"],
        text=entry.get("text"),
        origin=entry.get("origin"),
        stamp=entry.get("stamp"),
        id=entry.get("id"),
    )


def turn_context(turn: Optional[dict] = None) -> wc.Record:
    """The WIT `turn-context` for a turn's `recent`, `embedding` and `selected`."""
    turn = turn or {}
    embedding = turn.get("embedding")
    embedding = None if embedding is None else [float(x) for x in embedding]
    return record(recent=list(turn.get("recent", [])), embedding=embedding, selected=turn.get("selected"))


class FolderSource:
    """Skills on disk: a folder holding SKILL.md, or a folder searched for such folders
    (up to 8 levels, `.git` and `node_modules` skipped). Symbolic links are not followed,
    only regular files are read, and no read goes past the size it is asked for.

    Each `list()` searches the folder again (so a refresh finds skills added and removed;
    the first, within `settle_seconds` of construction, takes the constructor's search; a
    root that is gone fails the listing) and stamps each SKILL.md with its size, times,
    inode and device, as the `skillwire` command does: a refresh reads only the files whose
    stamp changed. A file changed within the last `settle_seconds` is listed without a stamp
    (read at every refresh until it settles): a rewrite within the file system's clock tick
    could otherwise keep its stamp."""

    # A bound on any SKILL.md read, far above the engine's own limit (which applies after).
    MAX_SKILL_MD_READ = 16 << 20

    def __init__(self, root: str | os.PathLike, settle_seconds: float = 2.0):
        self.root = Path(root).resolve()
        self.settle_seconds = settle_seconds
        self._search()
        # The first listing takes this search when it comes soon after (as the engine's
        # build does), instead of searching twice.
        self._searched_at: Optional[float] = time.monotonic()

    def _search(self) -> None:
        def unreadable(error: OSError) -> None:
            # A root that is gone or cannot be read fails the listing (the report says so);
            # a folder below it that cannot be read is passed over.
            if error.filename is not None and Path(error.filename) == self.root:
                raise error

        found = [self.root / "SKILL.md"] if _regular(self.root / "SKILL.md") else []
        if not found:
            for folder, dirs, files in os.walk(self.root, onerror=unreadable):  # os.walk does not follow links
                depth = len(Path(folder).relative_to(self.root).parts)
                dirs[:] = sorted(d for d in dirs if d not in (".git", "node_modules") and depth < 8)
                if "SKILL.md" in files and _regular(Path(folder) / "SKILL.md"):
                    found.append(Path(folder) / "SKILL.md")
        self.skills = sorted(str(p) for p in found)
        self._listed = set(self.skills)  # a read checks its location in constant time

    def list(self) -> list[dict]:
        searched_at, self._searched_at = self._searched_at, None
        if searched_at is None or time.monotonic() - searched_at > self.settle_seconds:
            self._search()
        return [self._entry(location) for location in self.skills]

    def _entry(self, location: str) -> dict:
        try:
            meta = os.lstat(location)
        except OSError:
            return {"location": location}  # gone since the search: its read says why
        changed = max(meta.st_mtime_ns, meta.st_ctime_ns)
        if time.time_ns() - changed < self.settle_seconds * 1e9:
            return {"location": location}
        stamp = f"{meta.st_size} {meta.st_mtime_ns} {meta.st_ctime_ns} {meta.st_ino} {meta.st_dev}"
        return {"location": location, "stamp": stamp}

    def read(self, location: str) -> str:
        self._folder(location)
        data = _read_regular(Path(location), self.MAX_SKILL_MD_READ, "SKILL.md")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise Refused(f"SKILL.md: not valid UTF-8 (byte {e.start})") from None

    def _folder(self, location: str) -> Path:
        if location not in self._listed:
            raise KeyError(f"{location}: not a skill of this source")
        return Path(location).parent

    def list_files(self, location: str) -> list[dict]:
        folder = self._folder(location)
        files = []
        for here, dirs, names in os.walk(folder):
            dirs.sort()
            for name in sorted(names):
                path = Path(here) / name
                if _regular(path):
                    files.append({"path": path.relative_to(folder).as_posix(), "size": path.lstat().st_size})
        return files

    def read_file(self, location: str, path: str, max_bytes: int) -> bytes:
        target = self._folder(location) / path
        # No segment of the path may be a link (the engine has refused `..` already).
        for parent in [target, *target.parents]:
            if parent == self._folder(location):
                break
            if parent.is_symlink():
                raise PermissionError(f"{path}: a link (not followed)")
        return _read_regular(target, max_bytes + 1, path, cut=True)


def _regular(path: Path) -> bool:
    """A regular file, not a link to one."""
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def _read_regular(path: Path, limit: int, what: str, cut: bool = False) -> bytes:
    """At most `limit` bytes of the regular file at `path` (not through a link); with `cut`
    the first `limit` bytes of a longer file, else a longer file is refused."""
    # A file that is gone (or cannot be looked at) raises here: a failure that may pass.
    if not stat.S_ISREG(path.lstat().st_mode):
        raise Refused(f"{what}: not a regular file")
    with open(path, "rb") as f:
        data = f.read(limit + (0 if cut else 1))
    if len(data) > limit:
        raise Refused(f"{what} is over {limit} bytes")
    return data


_COMPILED: dict[str, tuple[wasmtime.Engine, wc.Component]] = {}


def _compiled(path: str) -> tuple[wasmtime.Engine, wc.Component]:
    """The component at `path`, compiled once per process (compiling takes about a second;
    each `Skillwire` instantiates it in a store of its own)."""
    if path not in _COMPILED:
        engine = wasmtime.Engine()
        _COMPILED[path] = (engine, wc.Component.from_file(engine, path))
    return _COMPILED[path]


class Skillwire:
    """An engine over `sources` in the component at `component_path` (see the module docs).
    `options` changes the component's defaults (`default-options`): a dict of snake_case
    fields, nested for `rank`, `limits` and `scan`."""

    def __init__(self, component_path: str | os.PathLike, sources: Sequence[Any], options: Optional[dict] = None):
        self.sources = list(sources)
        self.options = options or {}
        self._engine, self._component = _compiled(str(component_path))
        self.rebuild()

    # Instantiation ------------------------------------------------------------------

    def rebuild(self) -> None:
        """A new store and instance of the component, and the engine built again."""
        self._store = wasmtime.Store(self._engine)
        linker = wc.Linker(self._engine)
        with linker.root() as root:
            with root.add_instance(SOURCE) as imports:
                imports.add_func("list", self._import(self._list))
                imports.add_func("read", self._import_read(self._read))
                imports.add_func("list-files", self._import(self._list_files))
                imports.add_func("read-file", self._import(self._read_file))
        self._instance = linker.instantiate(self._store, self._component)
        self._api = self._instance.get_export_index(self._store, API)
        options = self._options_record()
        self._limits = options.limits
        self._featured = self.call_free("defaults").featured
        self._handle = self._call("[constructor]engine", len(self.sources), options)

    def _options_record(self) -> wc.Record:
        """`default-options` with `self.options` over it; a field it does not have is an
        error (a misspelt option would do nothing)."""
        options = self.call_free("default-options")

        def put(target: wc.Record, key: str, value: Any, where: str) -> None:
            name = key.replace("_", "-")
            if not hasattr(target, name):
                raise KeyError(f"no option {where}{key}")
            if isinstance(value, dict):
                for inner, field in value.items():
                    put(getattr(target, name), inner, field, f"{where}{key}.")
            else:
                setattr(target, name, value)

        for key, value in self.options.items():
            put(options, key, value, "")
        return options

    @staticmethod
    def _import(answer: Callable[..., Any]) -> Callable[..., Any]:
        """A source method as a host import answering `result<list<_>, string>`: its value,
        or the message of the exception it raised (a `str` is the `err` case where the `ok`
        case is a list)."""

        def run(_store: Any, *args: Any) -> Any:
            try:
                return answer(*args)
            except Exception as e:  # the source's failure, handed to the engine as its err
                return str(e)

        return run

    @staticmethod
    def _import_read(answer: Callable[..., str]) -> Callable[..., Any]:
        """`read` as the host import answering `result<string, read-error>` (its cases are
        told apart by type, so untagged): the text, or a `read-error` with the exception's
        message, `refused` when it is a `Refused`."""

        def run(_store: Any, *args: Any) -> Any:
            try:
                return answer(*args)
            except Exception as e:  # the source's failure, handed to the engine as its err
                return record(message=str(e), refused=isinstance(e, Refused))

        return run

    def _list(self, source: int) -> list:
        return [entry_record(entry) for entry in self.sources[source].list()]

    def _read(self, source: int, location: str) -> str:
        text = self.sources[source].read(location)
        # Refused here, as the Rust host does, rather than copied into the guest.
        limit = getattr(self._limits, "max-skill-md-bytes")
        if len(text.encode("utf-8")) > limit:
            raise Refused(f"SKILL.md is over {limit} bytes")
        return text

    def _list_files(self, source: int, location: str) -> list:
        lister = getattr(self.sources[source], "list_files", None)
        if lister is None:
            raise LookupError("this source has no skill files")
        return [record(path=f["path"], size=min(int(f["size"]), 2**32 - 1)) for f in lister(location)]

    def _read_file(self, source: int, location: str, path: str, max_bytes: int) -> bytes:
        reader = getattr(self.sources[source], "read_file", None)
        if reader is None:
            raise LookupError("this source has no skill files")
        data = reader(location, path, max_bytes)
        data = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        return data[: max_bytes + 1]

    # Calls ----------------------------------------------------------------------------

    def call_free(self, name: str, *args: Any) -> Any:
        """Calls a free function of the API (`defaults`, `default-options`, `lint`, ...)."""
        return self._call(name, *args)

    def _call(self, name: str, *args: Any) -> Any:
        index = self._instance.get_export_index(self._store, name, self._api)
        if index is None:
            raise AttributeError(f"the component exports no {name}")
        func = self._instance.get_func(self._store, index)
        result = func(self._store, *args)
        func.post_return(self._store)
        return result

    def _method(self, name: str, *args: Any) -> Any:
        return self._call(f"[method]engine.{name}", self._handle, *args)

    @staticmethod
    def _checked(answer: Any, ok: type) -> Any:
        """An untagged `result<T, error>`: `T`, or the error raised."""
        if isinstance(answer, wc.Variant) and not isinstance(answer, ok):
            code = answer.tag
            raise SkillwireError(FILE_ERROR_CODES.get(code, code.replace("-", "_")), to_plain(answer.payload))
        return answer

    # The engine -----------------------------------------------------------------------

    def refresh(self) -> None:
        """Lists the sources again and reads the entries whose `stamp` changed (and those
        without one); the rest is what the last build prepared."""
        self._method("refresh")

    def update(self, source: int, entry: str | dict) -> bool:
        """Takes one changed entry of `self.sources[source]` (as its `list()` gives it: the
        same location, origin and id, with the new `stamp`, and `text` when at hand) without
        listing the sources: in place when the edit is to a body's instructions, with the
        indexes made again when it is to what they read (a description, tags, "When to use"
        sections), otherwise by a refresh. True when it was taken in place with nothing else
        changed."""
        self._check_source(source, "update")
        return bool(self._method("update", source, entry_record(entry)))

    def remove(self, source: int, location: str) -> bool:
        """Takes the entry of `self.sources[source]` at `location` out (its SKILL.md
        deleted) without listing the sources, or refreshes when it cannot be (an entry listed
        without a stamp, the last one, a skill that shadowed another). True when it was taken
        out without a refresh."""
        self._check_source(source, "remove")
        if not isinstance(location, str):
            raise SkillwireError("invalid_argument", "remove(): the location must be a string")
        return bool(self._method("remove", source, location))

    def _check_source(self, source: int, method: str) -> None:
        """An `invalid_argument` error naming `method` unless `source` is one of the sources
        (the engine would take an unknown source as a reason to refresh)."""
        if isinstance(source, bool) or not isinstance(source, int) or not 0 <= source < len(self.sources):
            raise SkillwireError("invalid_argument", f"{method}({source!r}): no such source")

    def report(self) -> dict:
        return to_plain(self._method("report"))

    def catalog(self, format: str = "agent-skills", budget: Optional[int] = None) -> dict:
        return to_plain(self._method("catalog", format, budget))

    def catalog_for(self, message: str, turn: Optional[dict] = None, featured: Optional[int] = None,
                    format: str = "agent-skills", budget: Optional[int] = None) -> dict:
        featured = self._featured if featured is None else featured
        answer = self._method("catalog-for", message, turn_context(turn), featured, format, budget)
        return to_plain(self._checked(answer, wc.Record))

    def match(self, message: str, turn: Optional[dict] = None) -> dict:
        answer = self._checked(self._method("match", message, turn_context(turn)), list)
        return {"matches": to_plain(answer)}

    def inject(self, message: str, turn: Optional[dict] = None) -> dict:
        return to_plain(self._checked(self._method("inject", message, turn_context(turn)), wc.Record))

    def complete(self, typed: str, limit: int) -> list:
        return to_plain(self._method("complete", typed, limit))

    def tools(self, exclude: Sequence[str] = ()) -> list:
        tools = to_plain(self._method("tools", list(exclude)))
        # The schema crosses as JSON text; the core's JSON holds it as an object.
        return [{**tool, "input_schema": json.loads(tool["input_schema"])} for tool in tools]

    def tool_definitions(self, provider: str, exclude: Sequence[str] = ()) -> str:
        return self._method("tool-definitions", provider, list(exclude))

    def files(self, skill: str) -> dict:
        return to_plain(self._checked(self._method("files", skill), wc.Record))

    def read_file(self, skill: str, path: str) -> dict:
        content = to_plain(self._checked(self._method("read-file", skill, path), wc.Record))
        # `file-body`'s cases differ in Python type (str, bytes), so wasmtime-py gives the
        # payload alone: written as the core writes it.
        body = content["body"]
        content["body"] = {"type": "text", "value": body} if isinstance(body, str) else {"type": "binary", "value": body}
        return content

    def set_embeddings(self, vectors: Sequence[tuple[str, Sequence[float]]]) -> int:
        answer = self._method("set-embeddings", [(name, [float(x) for x in v]) for name, v in vectors])
        return self._checked(answer, int)

    def close(self) -> None:
        """Drops the engine (the instance goes with this object)."""
        if self._handle is not None:
            self._handle.drop(self._store)
            self._handle = None

"""harness_json: the one reader of the harness's JSON files, for scripts/ and tests/.

One rule for every reader: the file is UTF-8 JSON as the harness writes it (a
non-finite number is null, never NaN or Infinity), an object never repeats a
key, and a results document never repeats a measurement or a conclusion
(section and key). Anything else raises Bad with a one-line reason that names
the file.

    read_json(path)   the parsed document of any JSON file (results or trace),
                      read up to a cap (inflated, where .gz)
    load(path)        a Run: a results document (schema_version 1), checked,
                      its strings made safe to print (shown)
    shown(s)          s with each control character as \\xNN
    Key(section, pattern)
                      a key the scripts read, named by its pattern in the key
                      schema (./harness --schema): fill it, match it, read it
    check_keys()      every Key made so far is declared in the schema, or Bad
"""

import gzip
import json
import math
import os
import re
import zlib

SCHEMA_VERSION = 1

# The most bytes read from a file, inflated where .gz (the largest results
# file stored, a node run, is 4.6 MB): a 4 MiB .gz of 4 GiB of zeros, or
# /dev/zero, is one line, not a MemoryError. HARNESS_JSON_MAX_MIB raises it.
MAX_ENV = "HARNESS_JSON_MAX_MIB"
MAX_MIB = 128


def max_bytes():
    """The cap on the bytes read, from HARNESS_JSON_MAX_MIB (a whole number
    of MiB) or MAX_MIB; raises Bad on a value that is not one."""
    v = os.environ.get(MAX_ENV)
    if v is None or v == "":
        return MAX_MIB << 20
    if not v.isdigit() or int(v) < 1:
        raise Bad("%s=%s: expected a whole number of MiB, 1 or more" % (MAX_ENV, v[:40]))
    return int(v) << 20


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def shown(s):
    """s with each control character (C0, DEL, C1: ESC, a newline, a CSI
    that could forge a line or move the cursor) as \\xNN, safe to print."""
    return _CONTROL.sub(lambda m: "\\x%02x" % ord(m.group()), s)


def _shown_all(v):
    """v with shown applied to every string and every object key in it."""
    if isinstance(v, str):
        return shown(v)
    if isinstance(v, list):
        return [_shown_all(x) for x in v]
    if isinstance(v, dict):
        return {shown(k): _shown_all(x) for k, x in v.items()}
    return v


class Bad(Exception):
    """A file that cannot be read, or is not what the harness writes."""


def _no_constants(name):
    raise ValueError("non-JSON constant %s (the harness writes null)" % name)


def _no_repeats(pairs):
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise ValueError("repeated key %r in an object" % k)
        obj[k] = v
    return obj


def _finite_float(s):
    v = float(s)
    if not math.isfinite(v):
        raise ValueError("number %s out of range" % s[:40])
    return v


def _bounded_int(s):
    # An integer the harness could have written: within a double's range
    # (so float() of it cannot overflow later).
    if len(s.lstrip("-")) > 308:
        raise ValueError("integer of %d digits out of range" % len(s.lstrip("-")))
    return int(s)


def read_json(path):
    """The document in the file at path (gzip-compressed when its name ends
    in .gz, as the stored reference runs are); raises Bad (unreadable, more
    than max_bytes() read (inflated), not gzip where .gz, not UTF-8, not JSON, a NaN/Infinity constant or a number
    beyond a double's range, nested too deeply for the parser, a repeated
    key in an object)."""
    cap = max_bytes()
    try:
        with (gzip.open if str(path).endswith(".gz") else open)(path, "rb") as f:
            data = f.read(cap + 1)
        if len(data) > cap:
            raise Bad("%s: more than %d MiB%s: not read (%s=MiB raises the cap)"
                      % (path, cap >> 20, " once inflated" if str(path).endswith(".gz") else "", MAX_ENV))
        text = data.decode("utf-8")
        del data
        return json.loads(text, parse_constant=_no_constants, object_pairs_hook=_no_repeats,
                          parse_float=_finite_float, parse_int=_bounded_int)
    except RecursionError:
        raise Bad("%s: not valid JSON: nested too deeply" % path)
    except (gzip.BadGzipFile, EOFError, zlib.error) as e:
        raise Bad("%s: not gzip-compressed JSON: %s" % (path, e))
    except OSError as e:
        raise Bad("%s: %s" % (path, e.strerror or e))
    except UnicodeDecodeError as e:
        raise Bad("%s: not UTF-8: %s" % (path, e))
    except ValueError as e:
        raise Bad("%s: not valid JSON: %s" % (path, e))


def num_ok(v):
    """True for a finite int or float (not a bool)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def median(m):
    """stats.median of measurement m as a float, or None (no m, no finite median)."""
    if not m or not isinstance(m.get("stats"), dict):
        return None
    v = m["stats"].get("median")
    return float(v) if num_ok(v) else None


def entry_device(e):
    """The ordinal of the device an entry of a node run belongs to, or None
    (an entry of the run itself, or of a one-device run)."""
    d = e.get("device") if isinstance(e, dict) else None
    if d is None:
        return None
    o = d.get("ordinal") if isinstance(d, dict) else None
    if type(o) is not int:
        raise ValueError("device is not an object with an integer ordinal")
    return o


def _index(path, doc, field, what, device):
    """{(section, key): entry} of the list doc[field] that belong to device
    (its entries and the run's own; device None: the run's own), in file
    order; raises Bad on an entry without string section and key, a bad
    device, or a repeated one."""
    items = doc.get(field, [])
    if not isinstance(items, list):
        raise Bad("%s: %s is not a list" % (path, field))
    out = {}
    for i, e in enumerate(items):
        if not (isinstance(e, dict) and isinstance(e.get("section"), str)
                and isinstance(e.get("key"), str)):
            raise Bad("%s: %s[%d] is not a %s" % (path, field, i, what))
        try:
            d = entry_device(e)
        except ValueError as err:
            raise Bad("%s: %s[%d]: %s" % (path, field, i, err))
        if d is not None and d != device:
            continue
        sk = (e["section"], e["key"])
        if sk in out:
            raise Bad("%s: %s[%d] repeats %s/%s" % (path, field, i, sk[0], sk[1]))
        out[sk] = e
    return out


def _devices(path, env):
    """The node run's devices ({ordinal: entry of environment.devices}), in
    order; {} for a run of one device."""
    devs = env.get("devices")
    if devs is None:
        return {}
    if not isinstance(devs, list):
        raise Bad("%s: environment.devices is not a list" % path)
    out = {}
    for i, d in enumerate(devs):
        if not (isinstance(d, dict) and type(d.get("ordinal")) is int):
            raise Bad("%s: environment.devices[%d] has no integer ordinal" % (path, i))
        if d["ordinal"] in out:
            raise Bad("%s: environment.devices[%d] repeats device %d" % (path, i, d["ordinal"]))
        out[d["ordinal"]] = d
    return out


class Run:
    """One results document: its path, the document, its environment, its
    measurements and conclusions (derived entries) by (section, key), in
    file order. A node run (--device=all|LIST) is read as one of its
    devices: that device's entries and the run's own, the environment with
    the device's own record laid over it; devices lists the ordinals and
    device is the one read (None: the run's own entries only)."""

    def __init__(self, path, doc, device=None):
        self.path = path
        self.doc = doc
        env = doc.get("environment")
        env = env if isinstance(env, dict) else {}
        self.node = _devices(path, env)
        self.devices = list(self.node)
        if device is not None and self.node and device not in self.node:
            raise Bad("%s: no device %d in this node run (it has %s)"
                      % (path, device, ", ".join(str(d) for d in self.devices)))
        if device is None and len(self.devices) == 1:
            device = self.devices[0]
        self.device = device if self.node else None
        self.env = dict(env)
        if self.device is not None:
            own = self.node[self.device].get("environment")
            self.env.update(own if isinstance(own, dict) else {})
        self.meas = _index(path, doc, "measurements", "measurement", self.device)
        self.derived = _index(path, doc, "derived", "derived entry", self.device)

    def view(self, device):
        """The same document read as device `device` of the node run."""
        return Run(self.path, self.doc, device)

    def get(self, section, key):
        """The measurement, or None."""
        return self.meas.get((section, key))

    def med(self, section, key):
        """The measurement's median as a finite float, or None."""
        return median(self.get(section, key))

    def keys(self, section, prefix=""):
        """Keys of section's measurements that start with prefix, in file order."""
        return [k for (s, k) in self.meas if s == section and k.startswith(prefix)]

    def conclusion(self, section, key):
        """The derived entry (a dict: name, value, unit, text, fields), or None."""
        return self.derived.get((section, key))

    def conclusions(self, section, prefix=""):
        """The derived entries of section whose key starts with prefix, in file order."""
        return [d for (s, k), d in self.derived.items() if s == section and k.startswith(prefix)]

    def value(self, section, key, field=None):
        """A derived entry's value (or its field `field`) as a finite float, or None."""
        d = self.conclusion(section, key)
        if d is None:
            return None
        v = d.get("value") if field is None else (d.get("fields") or {}).get(field)
        return float(v) if num_ok(v) else None

    def envnum(self, name):
        """A finite number from the environment record, or None."""
        v = self.env.get(name)
        return float(v) if num_ok(v) else None

    def source(self):
        """One line naming the run: GPU, driver, harness version, file."""
        parts = [str(self.env[k]) for k in ("gpu",) if self.env.get(k)]
        if self.env.get("driver_version"):
            parts.append("driver " + str(self.env["driver_version"]))
        if self.env.get("harness_version"):
            parts.append("harness " + str(self.env["harness_version"]))
        if self.device is not None:
            parts.append("device %d" % self.device)
        parts.append(os.path.basename(self.path))
        return ", ".join(parts)


def load(path, device=None):
    """The Run of the results file at path (a node run read as device
    `device`, or as its one device; see Run); raises Bad with a one-line
    reason (see read_json; not schema_version 1; measurements not a list of
    entries with section and key; a repeated measurement or conclusion; a
    device the node run does not have). Every string and object key of the
    document is as shown() makes it: a file cannot forge a line of what the
    scripts print."""
    doc = read_json(path)
    sv = doc.get("schema_version") if isinstance(doc, dict) else None
    if type(sv) is not int or sv != SCHEMA_VERSION:     # not true, not 1.0
        raise Bad("%s: not a harness JSON document (schema_version %d)" % (path, SCHEMA_VERSION))
    if not isinstance(doc.get("measurements"), list):
        raise Bad("%s: measurements is not a list" % path)
    try:
        doc = _shown_all(doc)
    except RecursionError:
        raise Bad("%s: not valid JSON: nested too deeply" % path)
    return Run(path, doc, device)


# ---------------------------------------------------------------- the key schema
# The keys a run can write, as ./harness --schema prints them: make writes
# build/schema.json and make install puts it beside this file as schema.json.
# Scripts name the keys they read as Keys, by their patterns, so a key the
# harness no longer declares is one clear error, not a figure silently lost.

SCHEMA_ENV = "HARNESS_SCHEMA"
_HERE = os.path.dirname(os.path.realpath(__file__))
_PLACEHOLDER = re.compile(r"<([A-Za-z]+)>")
_schema = None
KEYS = []           # every Key made, in order: what check_keys checks


def schema_paths():
    """Where the schema is looked for: $HARNESS_SCHEMA alone when set; else
    schema.json beside this file (installed), then build/schema.json of the
    source tree this file is in (as make writes it)."""
    env = os.environ.get(SCHEMA_ENV)
    if env:
        return [env]
    return [os.path.join(_HERE, "schema.json"),
            os.path.join(os.path.dirname(_HERE), "build", "schema.json")]


class Schema:
    """A --schema document: the regular expression of each placeholder
    (words), and the patterns of each section's measurement keys and of its
    derived entries (patterns[(section, derived)])."""

    def __init__(self, path, doc):
        self.path = path
        try:
            self.words = {w: str(p["regex"]) for w, p in doc["placeholders"].items()}
            self.patterns = {}
            for s in doc["sections"]:
                for part, derived in (("keys", False), ("derived", True)):
                    self.patterns[(s["section"], derived)] = [str(k["key"]) for k in s[part]]
        except (KeyError, TypeError, AttributeError) as e:
            raise Bad("%s: not a key schema (./harness --schema): no %s" % (path, e))


def schema():
    """The Schema, read once; raises Bad with a one-line reason when there
    is none or it cannot be read."""
    global _schema
    if _schema is None:
        paths = schema_paths()
        path = next((p for p in paths if os.path.exists(p)), None)
        if path is None:
            raise Bad("no key schema: no %s (make writes build/schema.json; or ./harness --schema "
                      ">FILE and %s=FILE)" % (" or ".join(paths), SCHEMA_ENV))
        _schema = Schema(path, read_json(path))
    return _schema


class Key:
    """A key of section as the schema declares it (derived: a derived
    entry's), named by its pattern: "row1", "n=<N>.cpu", "<side>.wall". With
    start, the start of one or more patterns ("waterfall.", "n=<N>."): its
    keys go on with any rest. Made when a script is imported; the schema is
    read when one is matched or check_keys runs."""

    def __init__(self, section, pattern, derived=False, start=False):
        self.section, self.pattern, self.derived, self.start = section, pattern, derived, start
        self.head = pattern.split("<", 1)[0]     # the text before the first placeholder
        self._rx = None
        KEYS.append(self)

    def __str__(self):
        return "%s %s %s%s" % (self.section, "derived key" if self.derived else "key",
                               self.pattern, "..." if self.start else "")

    def __call__(self, *parts):
        """The key: each placeholder replaced by the next of parts, in order;
        a start Key's one part more is the rest."""
        it = iter(parts)
        key = _PLACEHOLDER.sub(lambda m: str(next(it)), self.pattern)
        rest = list(it)
        if len(rest) > int(self.start):
            raise ValueError("%s: %d parts too many" % (self, len(rest)))
        return key + "".join(str(p) for p in rest)

    def glob(self, whole=False):
        """The pattern with a * for each placeholder ("n=*.cpu"), or with
        whole, for each dotted part that holds one ("*.cpu")."""
        if whole:
            return ".".join("*" if _PLACEHOLDER.search(p) else p for p in self.pattern.split("."))
        return _PLACEHOLDER.sub("*", self.pattern)

    def check(self, sch):
        """Raises Bad unless sch declares this key (a start Key: a pattern of
        the section begins with it)."""
        pats = sch.patterns.get((self.section, self.derived), [])
        if not (any(p.startswith(self.pattern) for p in pats) if self.start else self.pattern in pats):
            raise Bad("%s: %s is not declared: the script reads a key this harness does not write"
                      % (sch.path, self))

    def match(self, key):
        """The parts of key (strings, in order; a start Key's rest last) when
        it is one of this pattern's keys, else None. Raises Bad as check_keys."""
        if self._rx is None:
            sch = schema()
            self.check(sch)
            out, pos, i = [], 0, 0
            for m in _PLACEHOLDER.finditer(self.pattern):
                out.append(re.escape(self.pattern[pos:m.start()]))
                out.append("(?P<p%d>%s)" % (i, sch.words[m.group(1)]))
                pos, i = m.end(), i + 1
            out.append(re.escape(self.pattern[pos:]) + ("(?P<p%d>.*)" % i if self.start else ""))
            self._rx = (re.compile("".join(out) + r"\Z", re.S), i + int(self.start))
        rx, n = self._rx
        m = rx.match(key)
        return [m.group("p%d" % j) for j in range(n)] if m else None

    def get(self, run, *parts):
        """run's measurement at this key filled with parts (a derived Key:
        its derived entry), or None."""
        return (run.conclusion if self.derived else run.get)(self.section, self(*parts))

    def med(self, run, *parts):
        """The median of run's measurement at this key filled with parts, or None."""
        return median(self.get(run, *parts))

    def find(self, run):
        """[(parts, entry)] of run's measurements (a derived Key: derived
        entries) whose key is one of this pattern's, in file order."""
        entries = run.derived if self.derived else run.meas
        out = []
        for (s, k), e in entries.items():
            if s == self.section and k.startswith(self.head):
                parts = self.match(k)
                if parts is not None:
                    out.append((parts, e))
        return out


def check_keys(keys=None):
    """Raises Bad (one line) unless the schema declares every Key made so
    far (or every one of keys)."""
    sch = schema()
    for k in KEYS if keys is None else keys:
        k.check(sch)

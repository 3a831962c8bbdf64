#!/usr/bin/env python3
"""Writes include/groundplane/detail/text/unicode_data.hpp: the Unicode tables NFC and simple
case folding read (canonical decompositions, combining classes, primary composites,
simple case folds), the word classes prose is read with, and what prose compares a word
by: each code point's compatibility decomposition (NFKC), case-folded and folded to its
confusable prototype (the UTS #39 skeleton), and the characters that read as a sign, a
decimal point or a digit. The Unicode database is this Python's; the skeletons and the
default-ignorable property are ICU's (Debian: python3-icu).

    python3 tools/unicode_tables.py > include/groundplane/detail/text/unicode_data.hpp

.ci/run runs it and fails when the committed file differs.
"""
import sys
import unicodedata

import icu  # python3-icu: ICU's spoof checker gives the UTS #39 skeleton of a string

MAX = 0x110000
SURROGATES = range(0xD800, 0xE000)


def chars():
    for cp in range(MAX):
        if cp in SURROGATES or 0xAC00 <= cp <= 0xD7A3:  # Hangul syllables: computed, not tabled
            continue
        yield cp


decomp = []      # (cp, [full canonical decomposition])
ccc = []         # (first, last, class) runs
compose = []     # (first, second, composite)
fold = []        # (cp, simple fold)
classes = []     # (first, last, class) runs: 1 letter or mark, 2 decimal digit
run = None
for cp in chars():
    c = chr(cp)
    nfd = unicodedata.normalize("NFD", c)
    if nfd != c:
        decomp.append((cp, [ord(x) for x in nfd]))
    k = unicodedata.combining(c)
    if run and run[2] == k and run[1] == cp - 1 and k != 0:
        run[1] = cp
    else:
        if run and run[2] != 0:
            ccc.append(tuple(run))
        run = [cp, cp, k]
    d = unicodedata.decomposition(c)
    if d and not d.startswith("<"):
        parts = [int(x, 16) for x in d.split()]
        if len(parts) == 2 and unicodedata.normalize("NFC", chr(parts[0]) + chr(parts[1])) == c:
            compose.append((parts[0], parts[1], cp))
    f = c.casefold()
    if len(f) != 1:
        f = c.lower() if len(c.lower()) == 1 else c
    if f != c:
        fold.append((cp, ord(f)))
if run and run[2] != 0:
    ccc.append(tuple(run))
IGNORABLE = icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT


def word_class(cp):
    """1 a letter or mark, or what NFKC makes letters and marks of (a circled or fullwidth
    letter, a ligature, a Roman numeral); 2 a number (N*), or what NFKC makes one of
    (a superscript, a circled digit, a vulgar fraction); 3 default-ignorable (invisible:
    a zero-width space, a soft hyphen, a variation selector), read as part of the word it
    stands in; 0 anything else, which ends a word."""
    if 0xD800 <= cp < 0xE000:
        return 0
    if icu.Char.hasBinaryProperty(cp, IGNORABLE):
        return 3
    c = chr(cp)
    cat = unicodedata.category(c)
    k = unicodedata.normalize("NFKC", c)
    if cat[0] in "LM" or (k != c and all(unicodedata.category(x)[0] in "LM" for x in k)):
        return 1
    if cat[0] == "N" or any(unicodedata.category(x)[0] == "N" for x in k):
        return 2
    return 0


word_classes = [word_class(cp) for cp in range(MAX)]
for cp in range(MAX):  # every code point, Hangul syllables included
    cls = word_classes[cp]
    if cls and classes and classes[-1][2] == cls and classes[-1][1] == cp - 1:
        classes[-1][1] = cp
    elif cls:
        classes.append([cp, cp, cls])
compose.sort()

# What prose compares a word by (detail/checks/prose.hpp): each code point's keys, concatenated
# and put in canonical order. The first reads case-insensitively: NFKD, simple case
# folding, then the skeleton (so "HARBOUR" and "harbour" meet, and Cyrillic "о" meets
# "o"); the second folds case after the skeleton, so capitals that look alike across
# scripts meet too (Cyrillic "Н" is "H", whose lower case is "h"; its own lower case "н"
# looks like no Latin letter). A word is a recorded name when either key of each of its
# words equals that key of the name's word.
spoof = icu.SpoofChecker()


def case_fold(text):
    out = ""
    for x in text:
        f = x.casefold()
        if len(f) != 1:
            f = x.lower() if len(x.lower()) == 1 else x
        out += f
    return out


def skeleton(text):
    return spoof.getSkeleton(0, text)


def keys(cp):
    d = unicodedata.normalize("NFKD", chr(cp))
    first = unicodedata.normalize("NFD", skeleton(case_fold(d)))
    second = unicodedata.normalize("NFD", case_fold(skeleton(d)))
    return first, second


IGNORED_FIRST, IGNORED_LAST = 0xE0000, 0xE0FFF  # tags and variation selectors, all default-ignorable
assert all(word_classes[cp] == 3 for cp in range(IGNORED_FIRST, IGNORED_LAST + 1))
prose_keys = []  # (cp, first, second) where either differs from the code point itself
for cp in range(MAX):
    if 0xAC00 <= cp <= 0xD7A3:  # Hangul syllables: decomposed by arithmetic, their jamo looked up
        continue
    if word_classes[cp] == 3:  # default-ignorable: nothing a reader sees
        if not IGNORED_FIRST <= cp <= IGNORED_LAST:  # that block is one range, not 4,096 records
            prose_keys.append((cp, "", ""))
        continue
    if word_classes[cp] not in (1, 2):
        continue
    first, second = keys(cp)
    # A combining mark is listed even as itself: a key holding one is put in canonical order.
    if first != chr(cp) or second != chr(cp) or unicodedata.combining(chr(cp)):
        prose_keys.append((cp, first, second))
key_of = {cp: (a, b) for cp, a, b in prose_keys}
for cp in range(0xAC00, 0xD7A4):  # that arithmetic is what the skeleton does too
    jamo = unicodedata.normalize("NFD", chr(cp))
    assert keys(cp) == ("".join(key_of.get(ord(j), (j, j))[0] for j in jamo),
                        "".join(key_of.get(ord(j), (j, j))[1] for j in jamo)), hex(cp)

# Characters that read as part of a number when written against a numeric slot
# ("-{score}", "{score}5"): 1 a sign (the skeleton of NFKC is '-' or '+': the minus sign,
# an en dash, a fullwidth hyphen-minus), 2 a decimal point ('.': a fullwidth full stop,
# a one dot leader), 3 a digit, or a letter whose skeleton is a digit's ('O', 'l', 'I').
digit_skeletons = {skeleton(str(d)) for d in range(10)}
numeric = []  # (first, last, kind) runs
for cp in range(MAX):
    if 0xD800 <= cp < 0xE000:
        continue
    cls = word_classes[cp]
    kind = 0
    if cls in (1, 2) or cp < 0x80 or unicodedata.category(chr(cp))[0] in "PSZ":
        shape = skeleton(unicodedata.normalize("NFKC", chr(cp)))
        if shape in ("-", "+"):
            kind = 1
        elif shape == ".":
            kind = 2 if cls != 2 else 3
        elif cls == 2 or (cls == 1 and shape in digit_skeletons):
            kind = 3
    if kind and numeric and numeric[-1][2] == kind and numeric[-1][1] == cp - 1:
        numeric[-1][1] = cp
    elif kind:
        numeric.append([cp, cp, kind])

out = sys.stdout


def write_rows(entries, per_line):
    for i in range(0, len(entries), per_line):
        out.write("    " + ", ".join(entries[i:i + per_line]) + ",\n")


out.write("// Generated by tools/unicode_tables.py from the Unicode " + unicodedata.unidata_version +
          " database and ICU " + icu.ICU_VERSION + "'s\n// confusable skeletons; do not edit.\n")
out.write("// What detail/text/unicode.hpp reads for NFC normalization, simple case folding, word classes and\n"
          "// the keys prose compares words by.\n")
out.write("#pragma once\n\n#include <cstddef>\n#include <cstdint>\n#include <string_view>\n\n// clang-format off\nnamespace groundplane::detail::unicode_data {\n\n")
out.write("inline constexpr const char* version = \"%s\";\n\n" % unicodedata.unidata_version)
# decompositions: index table (cp, offset, length) and one pool
pool = []
out.write("struct Decomposition {\n  std::uint32_t cp;\n  std::uint16_t offset;\n  std::uint8_t length;\n};\n")
out.write("inline constexpr Decomposition decompositions[] = {\n")
entries = []
for cp, parts in decomp:
    entries.append("{0x%X, %d, %d}" % (cp, len(pool), len(parts)))
    pool.extend(parts)
write_rows(entries, 6)
out.write("};\ninline constexpr std::uint32_t decomposition_pool[] = {\n")
for i in range(0, len(pool), 10):
    out.write("    " + ", ".join("0x%X" % x for x in pool[i:i + 10]) + ",\n")
out.write("};\n\n")
out.write("struct CombiningRun {\n  std::uint32_t first;\n  std::uint32_t last;\n  std::uint8_t ccc;\n};\n")
out.write("inline constexpr CombiningRun combining[] = {\n")
write_rows(["{0x%X, 0x%X, %d}" % r for r in ccc], 5)
out.write("};\n\n")
out.write("struct Composite {\n  std::uint32_t first;\n  std::uint32_t second;\n  std::uint32_t composite;\n};\n")
out.write("inline constexpr Composite composites[] = {\n")
write_rows(["{0x%X, 0x%X, 0x%X}" % r for r in compose], 4)
out.write("};\n\n")
out.write("struct Fold {\n  std::uint32_t cp;\n  std::uint32_t folded;\n};\n")
out.write("inline constexpr Fold folds[] = {\n")
write_rows(["{0x%X, 0x%X}" % r for r in fold], 6)
out.write("};\n\n")
out.write("// Runs of code points by word class: 1 a letter or mark (L*, M*, or what NFKC makes\n"
          "// letters of), 2 a number (N*, or what NFKC makes one of), 3 default-ignorable.\n")
out.write("struct ClassRun {\n  std::uint32_t first;\n  std::uint32_t last;\n  std::uint8_t cls;\n};\n")
out.write("inline constexpr ClassRun word_classes[] = {\n")
write_rows(["{0x%X, 0x%X, %d}" % tuple(r) for r in classes], 5)
out.write("};\n\n")


def c_string(text):
    return '"' + "".join(("\\x%02X" % b) if b < 0x20 or b >= 0x7F or b in (0x22, 0x5C) else chr(b)
                         for b in text.encode("utf-8")) + '"'


def byte_literal(data, indent="    ", width=112):
    """Bytes as adjacent C++ string literals, printable ASCII as itself: a string literal
    compiles in a fraction of the time an array of structs does."""
    lines = []
    line = indent + '"'
    after_hex = False
    for b in data:
        if 0x20 <= b < 0x7F and b not in (0x22, 0x5C, 0x3F):
            piece = chr(b)
            if after_hex and piece in "0123456789abcdefABCDEF":
                piece = '" "' + piece  # "\x41" "B", not "\x41B"
            after_hex = False
        else:
            piece = "\\x%02X" % b
            after_hex = True
        if len(line) + len(piece) + 1 > width:
            lines.append(line + '"')
            line = indent + '"' + (piece[3:] if piece.startswith('" "') else piece)
        else:
            line += piece
    lines.append(line + '"')
    return "\n".join(lines)


out.write("// The two keys prose compares a word by, for an ASCII letter, digit or '_' (\"\" for any\n"
          "// other ASCII byte): case-folded then the skeleton, and the skeleton then case-folded.\n")
ascii_keys = [keys(c) if word_classes[c] in (1, 2) or c == 0x5F else ("", "") for c in range(0x80)]
for name, which in (("ascii_first_key", 0), ("ascii_second_key", 1)):
    out.write("inline constexpr std::string_view %s[128] = {\n" % name)
    write_rows([c_string(k[which]) for k in ascii_keys], 16)
    out.write("};\n")
records = bytearray()
key_pool = []
for cp, first, second in prose_keys:
    if cp < 0x80:
        continue
    offset = len(key_pool)
    key_pool.extend(ord(x) for x in first)
    if second != first:
        key_pool.extend(ord(x) for x in second)
    assert offset < 0x10000 and len(first) < 0x80 and len(second) < 0x100
    marks = any(unicodedata.combining(x) for x in first + second)
    records += bytes([cp >> 16, (cp >> 8) & 0xFF, cp & 0xFF, offset >> 8, offset & 0xFF,
                      len(first) | (0x80 if marks else 0), 0 if second == first else len(second)])
pool = bytearray()
for x in key_pool:
    pool += bytes([x >> 16, (x >> 8) & 0xFF, x & 0xFF])
out.write("\n// Every other letter or number whose keys are not itself, or hold a combining mark, and every\n"
          "// default-ignorable code point (its keys empty); Hangul syllables are decomposed by\n"
          "// arithmetic and their jamo looked up. Sorted by code point, %d records of %d bytes: the\n"
          "// code point (3 bytes, big-endian), an offset into key_pool (2), the first key's length\n"
          "// (its high bit set when a key holds a combining mark) and the second's (0: the same as\n"
          "// the first, which it follows otherwise).\n"
          % (len(records) // 7, 7))
out.write("inline constexpr std::uint32_t ignored_first = 0x%X, ignored_last = 0x%X;  // default-ignorable, "
          "with no records\n" % (IGNORED_FIRST, IGNORED_LAST))
out.write("inline constexpr std::size_t prose_key_size = 7;\n")
out.write("inline constexpr std::size_t prose_key_count = %d;\n" % (len(records) // 7))
out.write("inline constexpr char prose_keys[] =\n" + byte_literal(records) + ";\n")
out.write("// The keys' code points, 3 bytes each, big-endian.\n")
out.write("inline constexpr std::size_t key_pool_count = %d;\n" % len(key_pool))
out.write("inline constexpr char key_pool[] =\n" + byte_literal(pool) + ";\n\n")
out.write("// Runs of code points that read as part of a number: 1 a sign, 2 a decimal point, 3 a digit\n"
          "// or a letter shaped like one.\n")
out.write("inline constexpr ClassRun numeric_shapes[] = {\n")
write_rows(["{0x%X, 0x%X, %d}" % tuple(r) for r in numeric], 5)
out.write("};\n\n}  // namespace groundplane::detail::unicode_data\n// clang-format on\n")

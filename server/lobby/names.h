/*
 * names.h: the rules a player name follows beyond its wire form, and the key names are
 * compared by (PROTOCOL.md section 9, "Names"). Built on ICU:
 *
 *   - a name is taken in Unicode NFKC (compatibility forms such as fullwidth letters
 *     become the ordinary ones);
 *   - it may hold no default-ignorable code point (fillers, joiners, variation
 *     selectors), control, format, private-use or unassigned code point;
 *   - its scripts pass UTS #39's "highly restrictive" level (one script, or Latin with
 *     Han and Japanese kana, or with Han and Bopomofo, or with Han and Hangul);
 *   - two names are the same name when the skeletons (UTS #39 confusables) of their
 *     NFKC case-folded forms, case-folded again, are equal: "Alice", "ALICE", "Alıce"
 *     and "Ａｌｉｃｅ" are one name, as are "Bob0" and "BOBO". (Capital I against small
 *     l, "AIice", is not caught: folding first makes the I an i.)
 *
 * Thread-safe (ICU's spoof checker is opened once and only read afterwards).
 */
#ifndef THUE_LOBBY_NAMES_H
#define THUE_LOBBY_NAMES_H

#include <stddef.h>

/* The key's size with its NUL: 64 hex digits of a SHA-256 of the skeleton. */
#define THUE_NAME_KEY_SIZE 65

/*
 * Checks a player name (already of the wire form: UTF-8, 1..24 letters, digits, space,
 * '_', '-', '.') and writes its NFKC form into out (size bytes; 97 holds any allowed name: the NFKC
 * form too must have at most 24 code points).
 * 0 when it is allowed; -1 when not, with a sentence for people in why (size whysize).
 */
int thue_name_check(const char *name, char *out, size_t size, char *why, size_t whysize);

/*
 * The key two names are compared by, into key (THUE_NAME_KEY_SIZE bytes): equal keys are
 * the same name. Never fails: should ICU fail, the key is made from the name with ASCII
 * letters folded (the rule before ICU).
 */
void thue_name_key(const char *name, char key[THUE_NAME_KEY_SIZE]);

/* For tests: the key of name by the ASCII shortcut (fast; "" when it does not apply) and
 * by ICU (slow; "" when ICU failed). They must agree whenever both apply. */
void thue__name_key_ways(const char *name, char fast[THUE_NAME_KEY_SIZE],
                         char slow[THUE_NAME_KEY_SIZE]);

#endif

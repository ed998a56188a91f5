/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SMPTE ST 291-1 word rules shared by the ST 2038 and RFC 8331 conversions
 * (src/flow/anc.c, docs/anc-data.md). Internal to the library (not
 * exported); the unit tests call them directly.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * mxl_anc_word:
 * @value: an 8-bit DID, SDID or Data_Count value.
 *
 * Returns: the 10-bit word: @value in bits 0-7, bit 8 even parity of bits
 * 0-7 (set when they hold an odd number of ones), bit 9 the inverse of
 * bit 8.
 */
uint16_t mxl_anc_word (uint8_t value);

/**
 * mxl_anc_word_ok:
 * @word: a 10-bit DID, SDID or Data_Count word (bits above 9 ignored).
 *
 * Returns: whether bits 8 and 9 are the parity of bits 0-7 (mxl_anc_word()).
 */
bool mxl_anc_word_ok (uint16_t word);

/**
 * mxl_anc_checksum:
 * @did, @sdid, @dc: the 10-bit words as carried.
 * @udw: (array length=n): the user data words.
 *
 * Returns: the 10-bit checksum word: bits 0-8 the sum modulo 512 of bits
 * 0-8 of @did, @sdid, @dc and every UDW, bit 9 the inverse of bit 8.
 */
uint16_t mxl_anc_checksum (uint16_t did, uint16_t sdid, uint16_t dc,
    uint16_t const *udw, size_t n);

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Ring arithmetic shared by readers and writers: the discrete read window
 * (docs/flow-format.md §5.4) and the continuous window and wrapped slices (§5.5,
 * convention (A)).
 */
#pragma once

#include "flow/flow-priv.h"

/* §5.4 checks 1-4. On OK *@out_slot is the slot mapping of @index. */
mxlStatus mxl_grain_window_check (const MxlFlowMap *map, uint64_t index,
    uint16_t min_valid, uint8_t **out_slot);

/* §5.5 read check of (@index, @count); @count >= 1. */
mxlStatus mxl_samples_window_check (const MxlFlowMap *map, uint64_t index,
    size_t count);

/* §5.5 slices of (@index, @count), 1 <= @count <= L / 2. */
void mxl_samples_slices (const MxlFlowMap *map, uint64_t index, size_t count,
    mxlMutableWrappedMultiBufferSlice *out);

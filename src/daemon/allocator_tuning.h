#pragma once

namespace hpa::daemon {

// Tunes glibc's allocator for a controller that lives for months on a steady working set with
// bursts of large, short-lived buffers (list responses and their JSON trees): at most 2 malloc
// arenas. Otherwise every thread that allocates gets its own (up to 8 per core), each keeping
// the free memory of its last burst resident: at 1,000 HPAs, 108 MiB resident against 65 MiB
// with 2 arenas (bench/README.md). Left alone when the operator set malloc tunables
// (GLIBC_TUNABLES) themselves. Call before threads start; returns whether it changed anything
// (never under a sanitizer, whose allocator ignores mallopt).
bool tuneAllocator();

// Whether a GLIBC_TUNABLES value (nullptr: unset) sets any malloc tunable.
bool setsMallocTunables(const char* glibcTunables);

}  // namespace hpa::daemon

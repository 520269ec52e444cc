// Shared by the shim's translation units (not part of its public header).
#pragma once

#include <cstdlib>
#include <cstring>
#include <string>

// A malloc'd copy the Swift side frees with qbt_free.
inline char *dup_string(const std::string &s) {
    char *out = static_cast<char *>(std::malloc(s.size() + 1));
    if (out) std::memcpy(out, s.c_str(), s.size() + 1);
    return out;
}

// The shim's settings packs: libtorrent settings set by name, each value parsed by the setting's type.
#include "shim_internal.hpp"

using namespace qbt_shim;

extern "C" {

// MARK: settings

qbt_settings *qbt_settings_new(void) { return new (std::nothrow) qbt_settings(); }

bool qbt_settings_set(qbt_settings *settings, const char *name, const char *value, char **error) {
    try {
        int key = lt::setting_by_name(name);
        if (key < 0) {
            set_error(error, std::string("unknown libtorrent setting: ") + name);
            return false;
        }
        switch (key & lt::settings_pack::type_mask) {
        case lt::settings_pack::string_type_base:
            settings->pack.set_str(key, value);
            return true;
        case lt::settings_pack::int_type_base: {
            char *end = nullptr;
            long long v = std::strtoll(value, &end, 10);
            if (!end || *end != '\0' || *value == '\0') {
                set_error(error, std::string(name) + " needs an integer, not '" + value + "'");
                return false;
            }
            settings->pack.set_int(key, static_cast<int>(v));
            return true;
        }
        case lt::settings_pack::bool_type_base: {
            std::string v(value);
            if (v != "true" && v != "false") {
                set_error(error, std::string(name) + " needs true or false, not '" + value + "'");
                return false;
            }
            settings->pack.set_bool(key, v == "true");
            return true;
        }
        }
        set_error(error, std::string("unsupported setting type: ") + name);
        return false;
    } catch (const std::exception &e) {
        set_error(error, e.what());
        return false;
    }
}

void qbt_settings_free(qbt_settings *settings) { delete settings; }

}  // extern "C"

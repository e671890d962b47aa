/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Authentication of control messages (docs/protocol.md, docs/security.md):
 * HMAC-SHA256 with a per-switch key, computed by OpenSSL's libcrypto. Kept
 * out of the codec so that the switch program and its tests need no crypto
 * library; the PS and switchd link it.
 */
#ifndef INA_CONTROL_AUTH_H
#define INA_CONTROL_AUTH_H

#include <cstdint>
#include <string>

#include "ina/codec.h"

namespace ina {

/* A control key: 16 to 64 random bytes, shared by a switch and the PSes
 * that may register jobs with it. */
struct CtrlKey {
	static constexpr uint32_t kMinLen = 16;
	static constexpr uint32_t kMaxLen = 64;
	uint8_t bytes[kMaxLen] = {};
	uint32_t len = 0; /* 0: no key */
	bool empty() const { return len == 0; }
};

/* Hex text (32 to 128 hex digits, surrounding white space ignored) -> key;
 * false with a one-line *error. */
bool parse_ctrl_key(const std::string &hex, CtrlKey *out, std::string *error);

/* Reads a key file (one line of hex, as parse_ctrl_key). *warning (if not
 * null) is set when others than the owner may read the file. */
bool load_ctrl_key_file(const std::string &path, CtrlKey *out, std::string *error,
			std::string *warning = nullptr);

/* Writes a fresh key to a new file at `path`, in the form
 * load_ctrl_key_file() reads: kGenLen random bytes from the system's
 * generator (OpenSSL's RAND_bytes) as one line of hex, mode 0600. Refuses
 * a path that exists (a switch and its PSes share the key: replacing it
 * would lock them out one by one). False with a one-line *error. */
constexpr uint32_t kCtrlKeyGenLen = 32;
bool write_ctrl_key_file(const std::string &path, std::string *error);

/* Writes the MAC of the control frame frame[0..len) (as write_ctrl_frame
 * left it) into its trailer. False if it is not a well-formed control frame. */
bool sign_ctrl_frame(uint8_t *frame, uint32_t len, const CtrlKey &key);

/* True if the MAC in a control frame is right. `f` is the frame's
 * parse_ina_frame() result, whose payload decode_ctrl() accepted. The
 * comparison takes the same time wherever the MACs differ. */
bool verify_ctrl_frame(const uint8_t *frame, const InaFrame &f, const CtrlKey &key);

} /* namespace ina */

#endif /* INA_CONTROL_AUTH_H */

/* SPDX-License-Identifier: BSD-3-Clause
 *
 * HMAC-SHA256 of control messages (ina/control_auth.h) and the key file.
 */
#include "ina/control_auth.h"
#include "ina/goat_wire.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

namespace ina {

namespace {

/* Destination IP, source IP, then the INA header and payload up to the
 * MAC: binding both addresses keeps a message from being replayed toward
 * another switch that shares the key, or in another PS's name. */
bool compute_mac(const uint8_t *frame, const InaFrame &f, const CtrlKey &key,
		 uint8_t out[INA_CTRL_MAC_LEN])
{
	uint8_t buf[8 + kCtrlMaxFrameLen];
	const uint32_t n = ctrl_signed_len(f);
	if (n > sizeof(buf) - 8)
		return false;
	ina_store32(buf, f.dst_ip);
	ina_store32(buf + 4, f.src_ip);
	memcpy(buf + 8, frame + f.ina_offset, n);
	unsigned int mac_len = 0;
	if (!HMAC(EVP_sha256(), key.bytes, static_cast<int>(key.len), buf, 8 + n, out, &mac_len))
		return false;
	return mac_len == INA_CTRL_MAC_LEN;
}

/* A parsed control frame whose payload has the control layout. */
bool parse_ctrl_frame(const uint8_t *frame, uint32_t len, InaFrame *f)
{
	if (parse_ina_frame(frame, len, f) != FrameVerdict::kOk || f->hdr.type != INA_TYPE_CONTROL)
		return false;
	if (f->payload_len && f->payload[0] == INA_CTRL_GOAT) {
		std::vector<GoatSlots> slots;
		uint32_t ps_ip;
		uint64_t counter;
		return goat_ctrl_parse(f->payload, f->payload_len, &slots, &ps_ip, &counter).empty();
	}
	CtrlMessage m;
	return decode_ctrl(f->payload, f->payload_len, &m) == CtrlVerdict::kOk;
}

int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

} /* namespace */

bool parse_ctrl_key(const std::string &hex, CtrlKey *out, std::string *error)
{
	size_t b = 0, e = hex.size();
	while (b < e && std::isspace(static_cast<unsigned char>(hex[b])))
		b++;
	while (e > b && std::isspace(static_cast<unsigned char>(hex[e - 1])))
		e--;
	const size_t digits = e - b;
	if (digits % 2 || digits < 2 * CtrlKey::kMinLen || digits > 2 * CtrlKey::kMaxLen) {
		*error = "a key is " + std::to_string(2 * CtrlKey::kMinLen) + " to " +
			 std::to_string(2 * CtrlKey::kMaxLen) + " hex digits (an even number), got " +
			 std::to_string(digits) + " characters";
		return false;
	}
	CtrlKey k;
	for (size_t i = 0; i < digits; i += 2) {
		const int hi = hex_digit(hex[b + i]), lo = hex_digit(hex[b + i + 1]);
		if (hi < 0 || lo < 0) {
			*error = "a key is hex digits only (0-9, a-f)";
			return false;
		}
		k.bytes[i / 2] = static_cast<uint8_t>(hi << 4 | lo);
	}
	k.len = static_cast<uint32_t>(digits / 2);
	*out = k;
	return true;
}

bool load_ctrl_key_file(const std::string &path, CtrlKey *out, std::string *error, std::string *warning)
{
	std::ifstream f(path);
	if (!f) {
		*error = path + ": cannot open the key file";
		return false;
	}
	std::stringstream ss;
	ss << f.rdbuf();
	std::string why;
	if (!parse_ctrl_key(ss.str(), out, &why)) {
		*error = path + ": " + why;
		return false;
	}
	struct stat st;
	if (warning && stat(path.c_str(), &st) == 0 && (st.st_mode & (S_IRWXG | S_IRWXO)))
		*warning = path + ": the key file is readable by others than its owner (chmod 600 it)";
	return true;
}

bool write_ctrl_key_file(const std::string &path, std::string *error)
{
	uint8_t key[kCtrlKeyGenLen];
	if (RAND_bytes(key, sizeof(key)) != 1) {
		*error = "the system's random generator gave no key";
		return false;
	}
	static const char hex[] = "0123456789abcdef";
	std::string text;
	for (uint8_t b : key) {
		text += hex[b >> 4];
		text += hex[b & 15];
	}
	text += '\n';
	OPENSSL_cleanse(key, sizeof(key));
	/* O_EXCL: never replace a key (nor follow a link to a file) that
	 * exists; the mode is set at creation, so the key is never readable
	 * by others, not even for a moment. */
	const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		*error = path + (errno == EEXIST ? ": exists; a new key would lock out every switch and PS "
						   "that shares it (remove it first to replace it)"
						 : ": cannot create the key file: " + std::string(strerror(errno)));
		OPENSSL_cleanse(text.data(), text.size());
		return false;
	}
	const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
	const int saved = errno;
	OPENSSL_cleanse(text.data(), text.size());
	if (close(fd) != 0 || !ok) {
		*error = path + ": cannot write the key file: " + std::string(strerror(ok ? errno : saved));
		unlink(path.c_str());
		return false;
	}
	return true;
}

bool sign_ctrl_frame(uint8_t *frame, uint32_t len, const CtrlKey &key)
{
	InaFrame f;
	if (key.empty() || !parse_ctrl_frame(frame, len, &f))
		return false;
	uint8_t *mac = frame + f.ina_offset + INA_HDR_LEN + f.payload_len - INA_CTRL_MAC_LEN;
	return compute_mac(frame, f, key, mac);
}

bool verify_ctrl_frame(const uint8_t *frame, const InaFrame &f, const CtrlKey &key)
{
	uint8_t want[INA_CTRL_MAC_LEN];
	if (key.empty() || f.payload_len < sizeof(ina_ctrl_hdr) + sizeof(ina_ctrl_auth) ||
	    !compute_mac(frame, f, key, want))
		return false;
	const uint8_t *got = f.payload + f.payload_len - INA_CTRL_MAC_LEN;
	return CRYPTO_memcmp(want, got, INA_CTRL_MAC_LEN) == 0;
}

} /* namespace ina */

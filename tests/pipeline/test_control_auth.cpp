/* SPDX-License-Identifier: BSD-3-Clause
 * Control-message authentication (ina/control_auth.h): HMAC-SHA256 over the
 * addresses, the INA header and the payload, and the key file. */
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <openssl/hmac.h>

#include "ina/control_auth.h"

using namespace ina;

namespace {

const char *kKeyHex = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

CtrlKey key(const char *hex = kKeyHex)
{
	CtrlKey k;
	std::string err;
	EXPECT_TRUE(parse_ctrl_key(hex, &k, &err)) << err;
	return k;
}

/* A signed registration of job 21 with two workers, from 10.0.0.100 to 10.0.0.254. */
std::vector<uint8_t> signed_frame(const CtrlKey &k)
{
	CtrlMessage m;
	m.levels = 1;
	m.ps_ip = 0x0A000064;
	m.fan_in[0] = 2;
	m.n_workers = 2;
	m.workers[0].ip = 0x0A000001;
	m.workers[0].bit[0] = 0;
	m.workers[1].ip = 0x0A000002;
	m.workers[1].bit[0] = 1;
	m.counter = 1700000000000000000ull;
	Endpoint src{{2, 0, 0, 0, 0, 0x64}, 0x0A000064, INA_UDP_PORT};
	Endpoint dst{{2, 0, 0, 0, 0, 0xFE}, 0x0A0000FE, INA_UDP_PORT};
	std::vector<uint8_t> f(kCtrlMaxFrameLen);
	const uint32_t len = write_ctrl_frame(f.data(), static_cast<uint32_t>(f.size()), src, dst, 21, m);
	f.resize(len);
	EXPECT_TRUE(sign_ctrl_frame(f.data(), len, k));
	return f;
}

bool verifies(const std::vector<uint8_t> &frame, const CtrlKey &k)
{
	InaFrame f;
	if (parse_ina_frame(frame.data(), static_cast<uint32_t>(frame.size()), &f) != FrameVerdict::kOk)
		return false;
	return verify_ctrl_frame(frame.data(), f, k);
}

} /* namespace */

TEST(ControlAuth, MacIsHmacSha256OfAddressesHeaderAndPayload)
{
	const CtrlKey k = key();
	const auto frame = signed_frame(k);
	/* Recompute with OpenSSL directly over the documented input. */
	std::vector<uint8_t> input = {10, 0, 0, 254, 10, 0, 0, 100};
	input.insert(input.end(), frame.begin() + INA_HDR_OFFSET, frame.end() - INA_CTRL_MAC_LEN);
	uint8_t want[32];
	unsigned int n = 0;
	ASSERT_NE(HMAC(EVP_sha256(), k.bytes, static_cast<int>(k.len), input.data(), input.size(), want, &n),
		  nullptr);
	ASSERT_EQ(n, 32u);
	EXPECT_EQ(memcmp(frame.data() + frame.size() - 32, want, 32), 0);
	EXPECT_TRUE(verifies(frame, k));
}

TEST(ControlAuth, EveryByteTheMacCoversIsChecked)
{
	const CtrlKey k = key();
	const auto good = signed_frame(k);
	/* The IP addresses, then every byte from the INA header to the end. */
	std::vector<size_t> offsets = {26, 29, 30, 33};
	for (size_t i = INA_HDR_OFFSET; i < good.size(); i++)
		offsets.push_back(i);
	for (size_t i : offsets) {
		auto bad = good;
		bad[i] ^= 0x01;
		EXPECT_FALSE(verifies(bad, k)) << "byte " << i << " flipped";
	}
}

TEST(ControlAuth, WrongOrMissingKeyFails)
{
	const auto frame = signed_frame(key());
	EXPECT_FALSE(verifies(frame, key("ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")));
	EXPECT_FALSE(verifies(frame, CtrlKey{}));
	auto f = frame;
	EXPECT_FALSE(sign_ctrl_frame(f.data(), static_cast<uint32_t>(f.size()), CtrlKey{}));
	EXPECT_FALSE(sign_ctrl_frame(f.data(), static_cast<uint32_t>(f.size()) - 1, key()))
		<< "a truncated frame is not signed";
}

TEST(ControlAuth, KeyParsing)
{
	CtrlKey k;
	std::string err;
	EXPECT_TRUE(parse_ctrl_key(std::string("  ") + kKeyHex + "\n", &k, &err)) << err;
	EXPECT_EQ(k.len, 32u);
	EXPECT_EQ(k.bytes[31], 0x1f);
	EXPECT_TRUE(parse_ctrl_key("00112233445566778899AABBCCDDEEFF", &k, &err)) << "16 bytes, upper case";
	EXPECT_EQ(k.len, 16u);
	EXPECT_EQ(k.bytes[10], 0xAA);
	for (const char *bad : {"", "0011", "00112233445566778899aabbccddeef", /* odd */
				"00112233445566778899aabbccddeegg", "0011223344556677 8899aabbccddeeff"}) {
		err.clear();
		EXPECT_FALSE(parse_ctrl_key(bad, &k, &err)) << bad;
		EXPECT_FALSE(err.empty());
	}
	EXPECT_FALSE(parse_ctrl_key(std::string(130, 'a'), &k, &err)) << "above 64 bytes";
}

TEST(ControlAuth, KeyFile)
{
	char path[] = "/tmp/ina_keyXXXXXX";
	const int fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, kKeyHex, strlen(kKeyHex)), static_cast<ssize_t>(strlen(kKeyHex)));
	close(fd);
	CtrlKey k;
	std::string err, warn;
	ASSERT_TRUE(load_ctrl_key_file(path, &k, &err, &warn)) << err;
	EXPECT_EQ(k.len, 32u);
	EXPECT_TRUE(warn.empty()) << "mkstemp makes it 0600";
	chmod(path, 0644);
	ASSERT_TRUE(load_ctrl_key_file(path, &k, &err, &warn));
	EXPECT_NE(warn.find("chmod 600"), std::string::npos) << warn;
	unlink(path);
	EXPECT_FALSE(load_ctrl_key_file(path, &k, &err));
	EXPECT_NE(err.find("cannot open"), std::string::npos) << err;
}

/* ina-switchd --gen-key: a fresh key that load_ctrl_key_file() takes, mode
 * 0600, never over an existing file. */
TEST(ControlAuth, GeneratedKeyFile)
{
	char dir[] = "/tmp/ina_genkeyXXXXXX";
	ASSERT_NE(mkdtemp(dir), nullptr);
	const std::string a = std::string(dir) + "/a.key", b = std::string(dir) + "/b.key";
	std::string err, warn;
	ASSERT_TRUE(write_ctrl_key_file(a, &err)) << err;
	ASSERT_TRUE(write_ctrl_key_file(b, &err)) << err;
	struct stat st;
	ASSERT_EQ(stat(a.c_str(), &st), 0);
	EXPECT_EQ(st.st_mode & 0777, 0600u);
	CtrlKey ka, kb;
	ASSERT_TRUE(load_ctrl_key_file(a, &ka, &err, &warn)) << err;
	EXPECT_TRUE(warn.empty()) << warn;
	ASSERT_TRUE(load_ctrl_key_file(b, &kb, &err)) << err;
	EXPECT_EQ(ka.len, kCtrlKeyGenLen);
	EXPECT_NE(memcmp(ka.bytes, kb.bytes, kCtrlKeyGenLen), 0) << "two keys, two random draws";

	/* An existing file stays as it was. */
	EXPECT_FALSE(write_ctrl_key_file(a, &err));
	EXPECT_NE(err.find("exists"), std::string::npos) << err;
	CtrlKey again;
	ASSERT_TRUE(load_ctrl_key_file(a, &again, &err)) << err;
	EXPECT_EQ(memcmp(again.bytes, ka.bytes, kCtrlKeyGenLen), 0);
	EXPECT_FALSE(write_ctrl_key_file(std::string(dir) + "/no/such/dir.key", &err));
	EXPECT_NE(err.find("cannot create"), std::string::npos) << err;
	unlink(a.c_str());
	unlink(b.c_str());
	rmdir(dir);
}

/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace ina {

namespace {

bool refuse(const std::string &path, const std::string &why, std::string *error)
{
	*error = path + ": " + why;
	return false;
}

/* Why a file of this mode cannot be read as a configuration; "" if it can. */
const char *not_regular(mode_t mode)
{
	if (S_ISREG(mode))
		return "";
	if (S_ISDIR(mode))
		return "is a directory, not a regular file";
	if (S_ISFIFO(mode))
		return "is a FIFO, not a regular file";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "is a device, not a regular file";
	if (S_ISSOCK(mode))
		return "is a socket, not a regular file";
	return "is not a regular file";
}

} /* namespace */

bool read_input_file(const std::string &path, std::string *text, std::string *error, size_t max_bytes)
{
	if (path.empty())
		return refuse("''", "empty file name", error);
	if (path.find('\0') != std::string::npos)
		return refuse(path.substr(0, path.find('\0')), "file name holds a NUL byte", error);
	/* stat first, so that a FIFO is refused without opening it; the open
	 * does not block either (O_NONBLOCK) should the name have been swapped
	 * for one since, and fstat checks what was really opened. */
	struct stat st;
	if (stat(path.c_str(), &st) != 0)
		return refuse(path, std::string("cannot open: ") + std::strerror(errno), error);
	if (*not_regular(st.st_mode))
		return refuse(path, not_regular(st.st_mode), error);
	const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return refuse(path, std::string("cannot open: ") + std::strerror(errno), error);
	bool ok = true;
	if (fstat(fd, &st) != 0)
		ok = refuse(path, std::string("cannot stat: ") + std::strerror(errno), error);
	else if (*not_regular(st.st_mode))
		ok = refuse(path, not_regular(st.st_mode), error);
	else if (static_cast<uint64_t>(st.st_size) > max_bytes)
		ok = refuse(path, "is " + std::to_string(st.st_size) + " bytes, over the limit of " +
				    std::to_string(max_bytes),
			    error);
	/* Read to the end, not st_size bytes: a file may grow meanwhile, and
	 * /proc files say 0. One byte past the limit is enough to refuse it. */
	std::string out;
	char chunk[65536];
	while (ok) {
		const ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ok = refuse(path, std::string("cannot read: ") + std::strerror(errno), error);
		else if (n == 0)
			break;
		else if (out.size() + static_cast<size_t>(n) > max_bytes)
			ok = refuse(path, "is over the limit of " + std::to_string(max_bytes) + " bytes", error);
		else
			out.append(chunk, static_cast<size_t>(n));
	}
	close(fd);
	if (ok)
		*text = std::move(out);
	return ok;
}

} /* namespace ina */

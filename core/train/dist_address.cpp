// The plain parts of the data-parallel layer (distributed.h) that the command line needs
// without LibTorch: the --master address and a free loopback port for local workers.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "core/common/input_error.h"
#include "core/train/distributed.h"

namespace doppler::train {

MasterAddress parseMasterAddress(const std::string& text, const std::string& option) {
  const auto bad = [&](const std::string& why) {
    return InputError("", option, "expected HOST:PORT, got '" + text + "' (" + why + ")");
  };
  MasterAddress address;
  std::string port;
  if (!text.empty() && text[0] == '[') {
    const auto close = text.find(']');
    if (close == std::string::npos) throw bad("no ']' after the IPv6 address");
    address.host = text.substr(1, close - 1);
    if (close + 1 >= text.size() || text[close + 1] != ':') throw bad("no port");
    port = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos) throw bad("no port");
    address.host = text.substr(0, colon);
    if (address.host.find(':') != std::string::npos)
      throw bad("an IPv6 address goes in brackets: [::1]:29500");
    port = text.substr(colon + 1);
  }
  if (address.host.empty()) throw bad("no host");
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
    throw bad("the port must be a number from 1 to 65535");
  address.port = std::stoi(port);
  if (address.port < 1 || address.port > 65535)
    throw bad("the port must be a number from 1 to 65535");
  return address;
}

int pickFreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket(): ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    throw std::runtime_error("no free port on 127.0.0.1: " + why);
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace doppler::train

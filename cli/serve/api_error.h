// A request that cannot be answered: the HTTP status and the message the client gets as JSON.
#pragma once

#include <stdexcept>
#include <string>

namespace swe::serve {

class ApiError : public std::runtime_error {
 public:
  ApiError(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

}  // namespace swe::serve

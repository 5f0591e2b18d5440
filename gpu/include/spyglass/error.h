#pragma once
// Typed errors of the compute library. Library code throws these; the application catches them at
// the worker boundary and shows the message. Nothing in gpu/ calls exit().
#include <cstdint>
#include <stdexcept>
#include <string>

namespace spyglass {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Bad input data: a malformed file, a size that does not match, NaN where none is allowed.
class InputError : public Error {
public:
    using Error::Error;
};

// A parse error names the source (file name or "<memory>") and the 1-based line.
class ParseError : public InputError {
public:
    ParseError(std::string source, std::int64_t line, const std::string& problem)
        : InputError(source + ":" + std::to_string(line) + ": " + problem),
          m_source(std::move(source)), m_line(line), m_problem(problem) {}
    const std::string& source() const { return m_source; }
    std::int64_t line() const { return m_line; }
    const std::string& problem() const { return m_problem; }

private:
    std::string m_source;
    std::int64_t m_line;
    std::string m_problem;
};

// The user (or a caller) asked the work to stop; not a failure.
class CancelledError : public Error {
public:
    CancelledError() : Error("cancelled") {}
};

// A device call failed. Carries the file and line of the failing call.
class DeviceError : public Error {
public:
    DeviceError(const std::string& what, const char* file, int line)
        : Error(std::string(file) + ":" + std::to_string(line) + ": " + what), m_file(file), m_line(line) {}
    const char* file() const { return m_file; }
    int line() const { return m_line; }

private:
    const char* m_file;
    int m_line;
};

// The device (or the host, for huge declared sizes) has not enough memory for the request.
class OutOfMemoryError : public DeviceError {
public:
    using DeviceError::DeviceError;
};

// The operation needs a backend that is not present (e.g. CUDA on a machine without a GPU).
class BackendUnavailableError : public Error {
public:
    using Error::Error;
};

} // namespace spyglass

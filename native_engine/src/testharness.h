// testharness.h — a minimal test harness for the engine's C++ unit tests (*_test.cc).
//
// Contract (LevelDB style, no third-party framework):
//   * TEST(Suite, Name) { ... } defines and registers a test; each *_test.cc ends with
//     `int main() { return wacky::test::RunAllTests(); }`, which runs every test in
//     definition order, prints one line per failure and a summary, and returns 0 iff
//     all passed (ctest reads the exit status).
//   * CHECK(cond), CHECK_EQ/NE/LT/LE/GT/GE(a, b) fail the current test with file:line
//     and the values involved; the test stops there (the failure is thrown) and the
//     next test runs. CHECK_THROWS(stmt, Type, substr) requires stmt to throw Type (or
//     a subclass) whose what() contains substr. Any other exception escaping a test
//     fails it too.
//   * TempDir is a fresh directory under $TMPDIR (or /tmp), removed with its contents
//     when the TempDir is destroyed.
#ifndef WACKY_NATIVE_ENGINE_TESTHARNESS_H_
#define WACKY_NATIVE_ENGINE_TESTHARNESS_H_

#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace wacky {
namespace test {

struct Failure {
  std::string message;
};

struct TestCase {
  const char* suite;
  const char* name;
  std::function<void()> body;
};

inline std::vector<TestCase>& Registry() {
  static std::vector<TestCase> tests;
  return tests;
}

struct Registrar {
  Registrar(const char* suite, const char* name, std::function<void()> body) {
    Registry().push_back(TestCase{suite, name, std::move(body)});
  }
};

// Prints a value for a failure message; bytes print as numbers, not characters.
template <typename T>
std::string Show(const T& v) {
  std::ostringstream os;
  if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t> ||
                std::is_same_v<T, char>)
    os << static_cast<int>(v);
  else
    os << v;
  return os.str();
}

[[noreturn]] inline void Fail(const char* file, int line, const std::string& what) {
  std::ostringstream os;
  os << file << ":" << line << ": " << what;
  throw Failure{os.str()};
}

template <typename A, typename B>
void CheckOp(bool ok, const char* file, int line, const char* expr, const A& a, const B& b) {
  if (!ok)
    Fail(file, line, std::string("CHECK(") + expr + ") failed: " + Show(a) + " vs " + Show(b));
}

inline int RunAllTests() {
  int failed = 0;
  for (const auto& t : Registry()) {
    std::string error;
    try {
      t.body();
    } catch (const Failure& f) {
      error = f.message;
    } catch (const std::exception& e) {
      error = std::string("uncaught exception: ") + e.what();
    } catch (...) {
      error = "uncaught non-standard exception";
    }
    if (!error.empty()) {
      ++failed;
      std::fprintf(stderr, "FAIL %s.%s: %s\n", t.suite, t.name, error.c_str());
    }
  }
  std::fprintf(stderr, "%zu tests, %d failed\n", Registry().size(), failed);
  return failed == 0 && !Registry().empty() ? 0 : 1;
}

class TempDir {
 public:
  TempDir() {
    const char* base = getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/wacky-test-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) throw Failure{"mkdtemp failed for " + tmpl};
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace test
}  // namespace wacky

#define WACKY_TEST_CONCAT2(a, b) a##b
#define WACKY_TEST_CONCAT(a, b) WACKY_TEST_CONCAT2(a, b)

#define TEST(suite, name)                                                           \
  static void suite##_##name##_Test();                                              \
  static ::wacky::test::Registrar WACKY_TEST_CONCAT(suite##_##name##_reg_, __LINE__)( \
      #suite, #name, &suite##_##name##_Test);                                       \
  static void suite##_##name##_Test()

#define CHECK(cond) \
  do {              \
    if (!(cond)) ::wacky::test::Fail(__FILE__, __LINE__, "CHECK(" #cond ") failed"); \
  } while (0)

#define WACKY_CHECK_OP(op, a, b)                                                        \
  do {                                                                                  \
    const auto& wacky_a_ = (a);                                                         \
    const auto& wacky_b_ = (b);                                                         \
    ::wacky::test::CheckOp(wacky_a_ op wacky_b_, __FILE__, __LINE__, #a " " #op " " #b, \
                           wacky_a_, wacky_b_);                                         \
  } while (0)

#define CHECK_EQ(a, b) WACKY_CHECK_OP(==, a, b)
#define CHECK_NE(a, b) WACKY_CHECK_OP(!=, a, b)
#define CHECK_LT(a, b) WACKY_CHECK_OP(<, a, b)
#define CHECK_LE(a, b) WACKY_CHECK_OP(<=, a, b)
#define CHECK_GT(a, b) WACKY_CHECK_OP(>, a, b)
#define CHECK_GE(a, b) WACKY_CHECK_OP(>=, a, b)

#define CHECK_THROWS(stmt, Type, substr)                                                     \
  do {                                                                                       \
    bool wacky_thrown_ = false;                                                              \
    try {                                                                                    \
      stmt;                                                                                  \
    } catch (const Type& wacky_e_) {                                                         \
      wacky_thrown_ = true;                                                                  \
      if (std::string(wacky_e_.what()).find(substr) == std::string::npos)                    \
        ::wacky::test::Fail(__FILE__, __LINE__, std::string(#Type " message '") +            \
                                                    wacky_e_.what() + "' lacks '" + substr + \
                                                    "'");                                    \
    }                                                                                        \
    if (!wacky_thrown_)                                                                      \
      ::wacky::test::Fail(__FILE__, __LINE__, "expected " #stmt " to throw " #Type);          \
  } while (0)

#endif  // WACKY_NATIVE_ENGINE_TESTHARNESS_H_

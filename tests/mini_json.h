// mini_json.h: a strict JSON parser (RFC 8259) for the tests, so that a trace the harness writes is parsed
// back as JSON, not matched with regexes. Throws std::runtime_error with the byte offset on any error,
// including trailing garbage. Small on purpose: objects keep their keys in order, numbers are doubles.
#pragma once

#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mini_json {

struct Value {
  enum Type { Null, Bool, Number, String, Array, Object } type = Null;
  bool boolean                                                 = false;
  double number                                                = 0;
  std::string string;
  std::vector<Value> array;
  std::vector<std::pair<std::string, Value>> object;

  bool has(const std::string& key) const {
    for (const auto& kv : object)
      if (kv.first == key) return true;
    return false;
  }
  const Value& operator[](const std::string& key) const {
    for (const auto& kv : object)
      if (kv.first == key) return kv.second;
    throw std::runtime_error("no key '" + key + "'");
  }
};

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}
  Value parse() {
    Value v = value();
    ws();
    if (i_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error("JSON error at byte " + std::to_string(i_) + ": " + what);
  }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  char peek() { return i_ < s_.size() ? s_[i_] : '\0'; }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  void literal(const char* word) {
    for (const char* p = word; *p; ++p) expect(*p);
  }
  Value value() {
    ws();
    Value v;
    const char c = peek();
    if (c == '{') {
      v.type = Value::Object;
      ++i_;
      ws();
      if (peek() == '}') {
        ++i_;
        return v;
      }
      for (;;) {
        ws();
        std::string key = string();
        ws();
        expect(':');
        v.object.emplace_back(std::move(key), value());
        ws();
        if (peek() == ',') {
          ++i_;
          continue;
        }
        expect('}');
        return v;
      }
    }
    if (c == '[') {
      v.type = Value::Array;
      ++i_;
      ws();
      if (peek() == ']') {
        ++i_;
        return v;
      }
      for (;;) {
        v.array.push_back(value());
        ws();
        if (peek() == ',') {
          ++i_;
          continue;
        }
        expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.type   = Value::String;
      v.string = string();
      return v;
    }
    if (c == 't') {
      literal("true");
      v.type    = Value::Bool;
      v.boolean = true;
      return v;
    }
    if (c == 'f') {
      literal("false");
      v.type = Value::Bool;
      return v;
    }
    if (c == 'n') {
      literal("null");
      return v;
    }
    v.type   = Value::Number;
    v.number = number();
    return v;
  }
  std::string string() {
    expect('"');
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) fail("unterminated string");
      const char c = s_[i_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      const char e = peek();
      ++i_;
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          if (i_ + 4 > s_.size()) fail("short \\u escape");
          unsigned code = 0;
          for (int k = 0; k < 4; ++k) {
            const char h = s_[i_++];
            code <<= 4;
            if (h >= '0' && h <= '9')
              code |= unsigned(h - '0');
            else if (h >= 'a' && h <= 'f')
              code |= unsigned(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
              code |= unsigned(h - 'A' + 10);
            else
              fail("bad hex digit in \\u escape");
          }
          if (code >= 0x80) fail("this small parser keeps \\u escapes to ASCII");
          out += char(code);
          break;
        }
        default:
          fail("bad escape");
      }
    }
  }
  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  double number() {
    const size_t start = i_;
    if (peek() == '-') ++i_;
    if (peek() == '0') {
      ++i_;
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9') ++i_;
    } else {
      fail("expected a value");
    }
    if (peek() == '.') {
      ++i_;
      if (!(peek() >= '0' && peek() <= '9')) fail("a digit must follow the decimal point");
      while (peek() >= '0' && peek() <= '9') ++i_;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++i_;
      if (peek() == '+' || peek() == '-') ++i_;
      if (!(peek() >= '0' && peek() <= '9')) fail("a digit must follow the exponent");
      while (peek() >= '0' && peek() <= '9') ++i_;
    }
    return std::strtod(s_.substr(start, i_ - start).c_str(), nullptr);
  }

  const std::string& s_;
  size_t i_ = 0;
};

inline Value parse(const std::string& text) {
  return Parser(text).parse();
}

}  // namespace mini_json

#include "trainers/study/plot_script.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace rotor {
namespace fs = std::filesystem;
namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

}  // namespace

std::string run_plot_script(const std::string& mode, const std::vector<std::string>& args) {
  const std::string python = env_or("ROTOR_PYTHON", "/usr/bin/python3");
  const std::string script = (fs::path(env_or("ROTOR_TOOLS_DIR", ROTOR_TOOLS_DIR)) / "plot_study.py").string();
  if (!fs::exists(python)) return python + " is not installed";
  if (!fs::exists(script)) return script + " not found (set ROTOR_TOOLS_DIR to rotor's tools/ folder)";
  std::string command = shell_quote(python) + " " + shell_quote(script) + " " + shell_quote(mode);
  for (const std::string& a : args) command += " " + shell_quote(a);
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return "cannot run " + python;
  std::string output;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe)) output += buf;
  const int status = pclose(pipe);
  if (status == 0) return "";
  while (!output.empty() && output.back() == '\n') output.pop_back();
  const size_t last = output.rfind('\n');
  return python + " " + script + " failed: " + (last == std::string::npos ? output : output.substr(last + 1));
}

}  // namespace rotor

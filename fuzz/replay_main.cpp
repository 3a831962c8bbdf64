// A main for replaying a corpus through a harness without libFuzzer, so every harness
// builds and runs with any compiler:  replay_<harness> <dir-or-file>...
// Files are fed in sorted order, each once; a violated invariant aborts with its message.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

bool feed(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", file.string().c_str());
    return false;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A copy in its own allocation, so a read past the end is caught by ASan as it would be
  // under libFuzzer.
  std::vector<std::uint8_t> input(bytes.begin(), bytes.end());
  std::fprintf(stderr, "replay: %s (%zu bytes)\n", file.string().c_str(), input.size());
  LLVMFuzzerTestOneInput(input.empty() ? nullptr : input.data(), input.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <corpus-dir-or-file>...\n", argv[0]);
    return 2;
  }
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path p(argv[i]);
    if (std::filesystem::is_directory(p)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(p))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "replay: no inputs found\n");
    return 1;
  }
  std::size_t fed = 0;
  for (const auto& f : files)
    if (feed(f)) ++fed;
  std::printf("replayed %zu of %zu input(s) without a violated invariant\n", fed, files.size());
  return fed == files.size() ? 0 : 1;
}

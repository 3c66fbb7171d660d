// Loading a policy through the LibTorch module makes glibc serve tensor-sized blocks from the heap
// and keep freed heap (policy::keepPlacementMemory in network_forward.cpp: a fresh process's first
// placement no longer faults in a new mapping for every large tensor). Checked through glibc's
// own count of mapped blocks.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdlib>
#include <cstring>

#include "core/train/torch_module.h"

namespace doppler::train {
namespace {

// Called through volatile pointers: the compiler may drop a malloc and free it can see through.
void* (*volatile allocate)(size_t) = std::malloc;
void (*volatile release)(void*) = std::free;

// Whether a block of `bytes` comes from its own mapping (mallinfo2's hblks counts them).
bool mappedOnItsOwn(size_t bytes) {
  const size_t before = mallinfo2().hblks;
  void* p = allocate(bytes);
  std::memset(p, 1, 64);
  const bool mapped = mallinfo2().hblks > before;
  release(p);
  return mapped;
}

TEST(TorchModuleMemory, ALoadedPolicyServesTensorSizedBlocksFromTheHeap) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizer's allocator replaces glibc's malloc, whose behaviour this checks";
#endif
  // 64 MB is above the largest threshold glibc's defaults ever rise to (32 MB), so the first check
  // holds in any process that has not loaded a policy, whatever it freed before.
  constexpr size_t kBlock = size_t{64} << 20;
  ASSERT_TRUE(mappedOnItsOwn(kBlock)) << "glibc's defaults map a block this large on its own";
  setenv("DOPPLER_TORCH_MODULE", DOPPLER_TORCH_MODULE_PATH, 1);
  const auto policy =
      loadTorchModule().loadPolicy(DOPPLER_SOURCE_DIR "/resources/data/policies/general.pt");
  ASSERT_NE(policy, nullptr);
  EXPECT_FALSE(mappedOnItsOwn(kBlock));
  // The block just freed stays with the process as free heap (no trim below 512 MB); glibc's
  // default (128 KB) would have given it back.
  EXPECT_GE(mallinfo2().fordblks, kBlock);
}

}  // namespace
}  // namespace doppler::train

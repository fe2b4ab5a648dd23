#pragma once
// TL_TEST_ASAN is defined when the test is compiled with AddressSanitizer
// (g++ defines __SANITIZE_ADDRESS__, clang answers __has_feature).

#if defined(__SANITIZE_ADDRESS__)
#define TL_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TL_TEST_ASAN 1
#endif
#endif

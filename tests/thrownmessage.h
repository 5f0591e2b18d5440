#pragma once
// What a refusal says: QVERIFY_THROWS_EXCEPTION checks only the type, the suites that check the words
// of a message take it from here.
#include <optional>
#include <string>

// The message of the E that `work` throws, or nullopt when it throws none.
template <typename E, typename Work>
std::optional<std::string> thrownMessage(Work&& work) {
    try {
        work();
    } catch (const E& error) {
        return std::string(error.what());
    }
    return std::nullopt;
}

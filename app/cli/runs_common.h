#pragma once
// What the `doppler runs ...` commands share: opening the store, the JSON of stored records, and
// short text for people.
#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sessions/queries.h"
#include "sessions/run_store.h"

namespace doppler::cli {

// Opens the store for a `runs` command. An explicit --db that does not exist is an error (a typo
// must not create an empty session); the default session is created on first use. Reading
// commands fall back to a read-only open where the file or its directory cannot be written.
std::unique_ptr<sessions::RunStore> openStore(const std::string& db, bool write);

// A run's row: kind, method, status, parameters, inputs, times, figures, tags.
nlohmann::json runJson(const sessions::RunInfo& r);
nlohmann::json checkpointsJson(const std::vector<sessions::CheckpointInfo>& checkpoints);
nlohmann::json notesJson(const std::vector<sessions::Note>& notes);

// "2025-01-02T03:04:05.678Z" -> "2025-01-02 03:04:05"
std::string shortTime(const std::string& iso);
std::string joined(const std::vector<std::string>& v, const char* sep = ", ");

// `doppler runs export` (cmd_runs_export.cpp), added under `runs`.
void addRunsExportCommand(CLI::App& runs);

}  // namespace doppler::cli

// `doppler`: the headless face of Doppler Studio. Every subcommand prints one JSON object with
// --json; bad usage or bad input prints one line on stderr and exits with status 2; a result
// printed in full whose run could not be recorded exits with status 3 (run_recording.h).
#include <CLI/CLI.hpp>
#include <csignal>
#include <iostream>
#include <new>

#include "cli_common.h"
#include "core/common/input_error.h"
#include "core/train/distributed.h"
#include "interrupt.h"
#include "policy_cli.h"
#include "resources/version.h"
#include "run_recording.h"

int main(int argc, char** argv) {
  CLI::App app{"doppler: place dataflow graphs on GPUs and simulate them (Doppler Studio CLI)",
               "doppler"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "doppler " + doppler::resources::versionLine());
  // A file-size limit (RLIMIT_FSIZE) fails the write that crosses it, like a full disk, instead
  // of killing the process: the result is still printed.
  std::signal(SIGXFSZ, SIG_IGN);
  // Before the commands list or check methods: the general policy is one, and a start of local
  // search.
  doppler::cli::registerShippedPolicy();
  doppler::cli::addGraphCommands(app);
  doppler::cli::addGraphImportCommand(*app.get_subcommand("graph"));
  doppler::cli::addDevicesCommands(app);
  doppler::cli::addPlaceCommand(app);
  doppler::cli::addMethodsCommand(app);
  doppler::cli::addSimulateCommand(app);
  doppler::cli::addExportTraceCommand(app);
  doppler::cli::addDemoCommand(app);
  doppler::cli::addRunsCommands(app);
  doppler::cli::addTrainCommands(app);  // train and eval: LibTorch is loaded when they run
  doppler::cli::addFleetCommands(app);
  doppler::cli::addExecCommand(app);
  doppler::cli::addCalibrateCommand(app);
  doppler::cli::addPolicyCommands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "doppler: " << e.what() << " (see --help)\n";
    return 2;
  } catch (const doppler::InputError& e) {
    std::cerr << "doppler: " << e.what() << "\n";
    return 2;
  } catch (const doppler::cli::Interrupted& e) {
    // The best result so far is printed, marked partial, and stored as cancelled.
    std::cerr << "doppler: " << e.what() << "\n";
    return doppler::cli::kExitInterrupted;
  } catch (const doppler::cli::NotRecorded& e) {
    std::cerr << "doppler: " << e.what() << "\n";
    return doppler::cli::kExitNotRecorded;
  } catch (const doppler::train::DistributedError& e) {
    // A data-parallel run lost a worker: not bad input, not a bug.
    std::cerr << "doppler: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "doppler: out of memory\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "doppler: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

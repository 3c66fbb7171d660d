#include "views/common/measured_run.h"

#include <QCoreApplication>

#include "views/common/theme.h"

namespace doppler::views {
namespace {

double span(const Schedule& s, int node) {
  if (node < 0 || node >= static_cast<int>(s.nodes.size())) return 0;
  return s.nodes[node].finish_us - s.nodes[node].start_us;
}

QString tr(const char* text) {
  return QCoreApplication::translate("MeasuredRun", text);
}

}  // namespace

double MeasuredRun::errorPercent() const {
  const double sim = simulatedMakespan();
  return sim > 0 ? (schedule.makespan_us - sim) / sim * 100 : 0;
}

double MeasuredRun::nodeErrorPercent(int node) const {
  const double sim = snapshot ? span(snapshot->sim.schedule, node) : 0;
  return sim > 0 ? (span(schedule, node) - sim) / sim * 100 : 0;
}

QString measuredWhere(const MeasuredRun& run) {
  // Devices are worker threads, one per core; more devices than cores share cores, and the
  // measured times then include waiting for one.
  return run.shared_cores ? tr("%1 devices on %2 shared CPU cores (standing in for GPUs)")
                                .arg(run.devices)
                                .arg(run.cores)
                          : tr("%1 CPU cores standing in for %1 GPUs").arg(run.devices);
}

QString measuredNodeHtml(const MeasuredRun& run, int node) {
  if (!run.snapshot || node < 0 || node >= static_cast<int>(run.schedule.nodes.size())) return {};
  const double sim = span(run.snapshot->sim.schedule, node);
  const double measured = span(run.schedule, node);
  return tr("<h4>Measured: %1</h4>"
            "<table><tr><td>simulated</td><td>%2</td></tr>"
            "<tr><td>measured</td><td>%3 (%4 real)</td></tr>"
            "<tr><td>error</td><td>%5%</td></tr></table>")
      .arg(measuredWhere(run))
      .arg(formatDuration(sim), formatDuration(measured), formatDuration(measured * run.scale))
      .arg(sim > 0 ? QString::asprintf("%+.1f", run.nodeErrorPercent(node)) : QStringLiteral("–"));
}

}  // namespace doppler::views

#pragma once
// How the stepper reads a decision's scores: which way is better, how long a bar each score gets
// and how it is written. Shared by the candidate and device models and the graph's score badges,
// so a score reads the same everywhere.
#include <QColor>
#include <QString>
#include <Qt>
#include <string>
#include <vector>

namespace doppler::views {

// Item data roles of the candidate and device models, read by the score bar delegate and tests.
enum StepperRole {
  BarFractionRole = Qt::UserRole + 1,  // double in (0, 1]: the score against the best
  BarColorRole,                        // QColor of the bar
  ChosenRole,                          // bool: the method's (or the override's) choice
  ItemIndexRole,                       // int: the node (candidates) or the device (devices)
  ScoreValueRole,                      // double: the raw score
};

// Bar lengths in (0, 1], 1 for the best score. Non-negative scores where higher is better
// (probabilities, ranks) get bars proportional to the score, so 0.2 reads as a fifth of 1.0;
// positive scores where lower is better (times) get best / score; anything else (a best of 0,
// mixed signs) runs linearly from the worst (0.1, still visible) to the best.
std::vector<double> barFractions(const std::vector<double>& scores, bool higherBetter);

// Whether the method's score is a time ("upward rank (us)", "earliest finish (us)").
bool scoreIsTime(const std::string& meaning);
// "108 µs" for times, "0.42" for probabilities and other plain numbers.
QString formatScore(double score, const std::string& meaning);
// "upward rank": the meaning without its unit (a time's values carry theirs, "4.62 ms").
QString scoreMeaning(const std::string& meaning);
// "upward rank, higher first": the meaning for a column header or a caption.
QString scoreCaption(const std::string& meaning, bool higherBetter);
// How many candidates share the best score (relative tolerance 1e-9, as the schedulers compare).
int tiedAtBest(const std::vector<double>& scores, bool higherBetter);

// The stepper's accent (the ready set, the chosen node and device, the position marker), the
// same in the dock, the graph and the timeline; readable on the light and the dark theme.
QColor stepAccent();
// The accent's translucent tint, for bars and the chosen row.
QColor stepAccentTint(int alpha);

}  // namespace doppler::views

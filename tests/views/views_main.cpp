// One executable for the view tests; the first argument picks the suite (CTest runs each suite
// as its own test), the rest go to Qt Test.
#include <QApplication>
#include <QtTest>
#include <cstring>

int runModelsTest(int argc, char** argv);
int runTimelineViewTest(int argc, char** argv);
int runGraphViewTest(int argc, char** argv);
int runStepperTest(int argc, char** argv);
int runTrainingTest(int argc, char** argv);
int runRunsTest(int argc, char** argv);
int runPaletteTest(int argc, char** argv);
int runNiceTicksTest(int argc, char** argv);

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("Doppler-tests"));
  struct Suite {
    const char* name;
    int (*run)(int, char**);
  } suites[] = {{"models", runModelsTest},     {"timeline", runTimelineViewTest},
                {"graph", runGraphViewTest},   {"stepper", runStepperTest},
                {"training", runTrainingTest}, {"runs", runRunsTest},
                {"palette", runPaletteTest},   {"ticks", runNiceTicksTest}};
  if (argc > 1)
    for (const Suite& s : suites)
      if (std::strcmp(argv[1], s.name) == 0) {
        argv[1] = argv[0];
        return s.run(argc - 1, argv + 1);
      }
  int failed = 0;
  for (const Suite& s : suites) failed += s.run(argc, argv);
  return failed;
}

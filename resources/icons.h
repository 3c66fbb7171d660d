#pragma once
// The studio's icons, compiled in from resources.qrc by doppler_resources (linking the target is
// enough: no Q_INIT_RESOURCE). An icon's name is its file in resources/icons without ".svg":
// "doppler-studio" (the application icon, in colour) and the monochrome toolbar icons "open",
// "devices", "method", "run", "cancel", "fit", "present", "export", "theme", "find", "generate".
#include <QColor>
#include <QIcon>
#include <QString>

namespace doppler::resources {

// The application id: the installed desktop file is <id>.desktop (QGuiApplication's desktop file
// name), the AppStream metainfo and the hicolor icon carry the same id.
inline constexpr char kAppId[] = "io.github.doppler_studio.DopplerStudio";

// ":/icons/<name>.svg".
QString iconPath(const QString& name);
// The application icon.
QIcon appIcon();
// A toolbar icon drawn in `color`: the toolbar icons stroke with `currentColor`, which Qt draws
// black, so a dark theme asks for its text colour here. A null icon for an unknown name.
QIcon toolbarIcon(const QString& name, const QColor& color);

}  // namespace doppler::resources

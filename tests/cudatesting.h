#pragma once
// Shared by the suites that need a CUDA device (tst_cuda_*, tst_gui_gpu_*): without one they skip,
// saying why, so that a CPU-only machine runs them as skips rather than failures.
#include "spyglass/backend.h"

#include <QString>
#include <QtTest>

// Skips the suite when there is no CUDA device, else logs which device runs it; a macro because
// QSKIP returns from the test function (initTestCase) that calls it.
#define CUDATESTING_REQUIRE_DEVICE()                                                               \
    do {                                                                                           \
        const spyglass::DeviceInfo device_ = spyglass::cudaDeviceInfo();                           \
        if (!device_.present)                                                                      \
            QSKIP(qPrintable(QStringLiteral("no CUDA device: ") + QString::fromStdString(device_.reason))); \
        qInfo("device: %s", device_.name.c_str());                                                 \
    } while (false)

/**
 * The web dashboard meta serves on its HTTP port ({@link dev.tide.dashboard.Dashboard}): static pages
 * from this jar's resources ({@code dev/tide/dashboard/}: plain HTML, JS and CSS, no build step),
 * the uPlot and ECharts WebJars, and JSON endpoints under {@code /api/dash/}. It holds no state of
 * its own beyond a sampler's in-memory time series ({@link dev.tide.dashboard.Sampler}): reads and
 * actions go through the admin API as {@code tide ctl}'s do, the timeline is meta's
 * {@link dev.tide.meta.EventLog} and the optimizer groups' keeper actions. See docs/dashboard.md.
 */
package dev.tide.dashboard;

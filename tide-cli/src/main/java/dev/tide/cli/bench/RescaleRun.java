package dev.tide.cli.bench;

import java.util.List;

/**
 * One state size of the rescale benchmark.
 *
 * @param targetBytes the requested state size
 * @param backfillEvents events of the backfill stream
 * @param backfillSeconds from submission until the backfill's last offsets were committed
 * @param backfilledBytes committed SST bytes then
 * @param outcomes one per reschedule, in order
 * @param recoveries recoveries of the cluster during the run (0 for a clean run)
 */
public record RescaleRun(long targetBytes, long backfillEvents, double backfillSeconds, long backfilledBytes,
    List<RescaleOutcome> outcomes, long recoveries) {}

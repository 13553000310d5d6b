"""Upstream's HPA test tables, transcribed: one entry per upstream test function, in upstream's
order; the numbers are upstream's, the harness that turns them into snapshots is generate.py.

A subcase's `eras` says which era directories hold it (v1.20: the 1.20 tables; v1.32: the
1.31/1.32 tables, run with the rules of 1.32 and of 1.30); where the two tables differ, each
holds its own version. Requests and levels are milli-units; R() requests are per container
(both containers request it), C() requests are per pod (split over two containers).
"""
from generate import C, CHEDDAR, G, N, Q, R, m_container, m_external, m_object, m_pods, ok, rules, uniform, ts

V20, V32 = ("v1.20",), ("v1.32",)
ONE = [1000]
RFNS = ("AbleToScale", "True", "ReadyForNewScale")
TOO_MANY = ("ScalingLimited", "True", "TooManyReplicas")
TOO_FEW = ("ScalingLimited", "True", "TooFewReplicas")
DOWN_STABILIZED = ("AbleToScale", "True", "ScaleDownStabilized")
GOT_SCALE = ("AbleToScale", "True", "SucceededGetScale")
RESCALED = [("AbleToScale", "True", "SucceededRescale")]


def inactive(reason):
    return [GOT_SCALE, ("ScalingActive", "False", reason)]


def test(table, name, *subcases, note=None, constructed=False):
    return dict(table=table, name=name, subcases=list(subcases), note=note, constructed=constructed)


def rc(name, *args, **kw):
    return test("rc", name, R(name, *args, **kw), note=kw.get("note"))


FIVE = [100, 300, 500, 250, 250]
FIVE_C2 = [[1000, 100], [1000, 300], [1000, 500], [1000, 250], [1000, 250]]

RC = [
    rc("TestReplicaCalcDisjointResourcesMetrics", 1, target=100, requests=ONE, levels=[100],
       pod_names=["an-older-pod-name"], err="no metrics returned matched known pods"),
    test("rc", "TestReplicaCalcMissingContainerMetricError",
         R("TestReplicaCalcMissingContainerMetricError", 1, target=100, requests=ONE, levels=[[0]], container="container2",
           err="container container2 not present in metrics for pod test-namespace/test-pod-0", eras=V20),
         note="Upstream leaves the target at 0 (the error comes first); 100 here. Only container1 has a metric."),
    test("rc", "TestReplicaCalcMissingContainerMetricError",
         R("TestReplicaCalcMissingContainerMetricError", 1, target=100, requests=ONE, levels=[[0]], container="container2",
           err="did not receive metrics for targeted pods", eras=V32,
           per_rules={"1.30": {"err": "container container2 not present in metrics for pod test-namespace/test-pod-0"}}),
         note="Not in the 1.32 table: kubernetes#127193 (1.32) removed it. Constructed from that change for 1.30, whose\n"
              "table (not found) still had the 1.20 fork's case: 1.30 fails the metric on the pod without container2; 1.32\n"
              "counts that pod as missing, and with no other pod nothing is left to average.\n"
              "Upstream leaves the target at 0 (the error comes first); 100 here. Only container1 has a metric.",
         constructed=True),
    rc("TestReplicaCalcScaleUp", 3, 5, target=30, requests=ONE * 3, levels=[300, 500, 700], util=50, value=1000),
    rc("TestReplicaCalcContainerScaleUp", 3, 5, target=30, requests=ONE * 3, levels=[[1000, 300], [1000, 500], [1000, 700]],
       container="container2", util=50, value=500),
    rc("TestReplicaCalcScaleUpUnreadyLessScale", 3, 4, target=30, requests=ONE * 3, levels=[300, 500, 700], ready="FTT",
       util=60, value=1200),
    rc("TestReplicaCalcScaleUpContainerHotCpuLessScale", 3, 4, target=30, requests=ONE * 3,
       levels=[[0, 300], [0, 500], [0, 700]], start="HCC", container="container2", util=60, value=600),
    rc("TestReplicaCalcScaleUpHotCpuLessScale", 3, 4, target=30, requests=ONE * 3, levels=[300, 500, 700], start="HCC",
       util=60, value=1200),
    rc("TestReplicaCalcScaleUpUnreadyNoScale", 3, 3, target=30, requests=ONE * 3, levels=[400, 500, 700], ready="TFF",
       util=40, value=800),
    rc("TestReplicaCalcScaleHotCpuNoScale", 3, 3, target=30, requests=ONE * 3, levels=[400, 500, 700], ready="TFF",
       start="CHH", util=40, value=800),
    rc("TestReplicaCalcScaleUpIgnoresFailedPods", 2, 4, target=30, requests=ONE * 4, levels=[500, 700], ready="TTFF",
       phase="RRFF", util=60, value=1200),
    test("rc", "TestReplicaCalcMissingContainerMetricScaleUpIgnoresFailedPods",
         R("TestReplicaCalcMissingContainerMetricScaleUpIgnoresFailedPods", 2, 4, target=30, requests=ONE * 4,
           levels=[[1000, 500], [9000, 700], [1000], [9000]], ready="TTFF", phase="RRFF", container="container2", util=60,
           value=600, eras=V32,
           per_rules={"1.30": {"err": "container container2 not present in metrics for pod"}}),
         note="The failed pods 2 and 3 report only container1. Constructed for 1.30 from kubernetes#127193 (1.32):\n"
              "before it, a pod's metrics without the named container failed the whole metric, failed pods included."),
    rc("TestReplicaCalcScaleUpContainerIgnoresFailedPods", 2, 4, target=30, requests=ONE * 4,
       levels=[[1000, 500], [9000, 700]], ready="TTFF", phase="RRFF", container="container2", util=60, value=600),
    rc("TestReplicaCalcScaleUpIgnoresDeletionPods", 2, 4, target=30, requests=ONE * 4, levels=[500, 700], ready="TTFF",
       phase="RRRR", deleting="..DD", util=60, value=1200),
    rc("TestReplicaCalcScaleUpContainerIgnoresDeletionPods", 2, 4, target=30, requests=ONE * 4, levels=[500, 700],
       ready="TTFF", phase="RRRR", deleting="..DD", container="container1", util=60, value=600),
    rc("TestReplicaCalcScaleUpCM", 3, 4, metric="pods", mlevels=[20000, 10000, 30000], mtarget=15000, usage=20000),
    rc("TestReplicaCalcScaleUpCMUnreadyHotCpuNoLessScale", 3, 6, metric="pods", mlevels=[50000, 10000, 30000],
       mtarget=15000, usage=30000, ready="TTF", start="CCH"),
    rc("TestReplicaCalcScaleUpCMUnreadyHotCpuScaleWouldScaleDown", 3, 7, metric="pods", mlevels=[50000, 15000, 30000],
       mtarget=15000, usage=31666, ready="FTF", start="HCH"),
    rc("TestReplicaCalcScaleUpCMObject", 3, 4, metric="object", mlevels=[20000], mtarget=15000, usage=20000),
    rc("TestReplicaCalcScaleUpCMPerPodObject", 3, 4, metric="objectPerPod", mlevels=[20000], mtarget=5000, usage=6667),
    rc("TestReplicaCalcScaleUpCMObjectIgnoresUnreadyPods", 3, 5, metric="object", mlevels=[50000], mtarget=10000,
       usage=50000, ready="FTF"),
    rc("TestReplicaCalcScaleUpCMExternal", 1, 2, metric="pods", mlevels=[8600], mtarget=4400, usage=8600,
       note="Upstream's case is a Pods metric (metricType podMetric) despite its name."),
    rc("TestReplicaCalcScaleUpCMExternalIgnoresUnreadyPods", 3, 2, metric="external", mlevels=[8600], mtarget=4400,
       usage=8600, selector=True, ready="FTF"),
    rc("TestReplicaCalcScaleUpCMExternalNoLabels", 1, 2, metric="pods", mlevels=[8600], mtarget=4400, usage=8600),
    rc("TestReplicaCalcScaleUpPerPodCMExternal", 3, 4, metric="externalPerPod", mlevels=[8600], mtarget=2150, usage=2867,
       selector=True),
    rc("TestReplicaCalcScaleDown", 5, 3, target=50, requests=ONE * 5, levels=FIVE, util=28, value=560),
    rc("TestReplicaCalcContainerScaleDown", 5, 3, target=50, requests=ONE * 5, levels=FIVE_C2, container="container2",
       util=28, value=280),
    rc("TestReplicaCalcScaleDownCM", 5, 3, metric="pods", mlevels=[12000] * 5, mtarget=20000, usage=12000),
    rc("TestReplicaCalcScaleDownPerPodCMObject", 5, 3, metric="objectPerPod", mlevels=[6000], mtarget=2000, usage=1200),
    rc("TestReplicaCalcScaleDownCMObject", 5, 3, metric="object", mlevels=[12000], mtarget=20000, usage=12000),
    rc("TestReplicaCalcScaleDownCMExternal", 5, 3, metric="external", mlevels=[8600], mtarget=14334, usage=8600,
       selector=True),
    rc("TestReplicaCalcScaleDownPerPodCMExternal", 5, 3, metric="externalPerPod", mlevels=[8600], mtarget=2867,
       usage=1720, selector=True),
    rc("TestReplicaCalcScaleDownExcludeUnreadyPods", 5, 2, target=50, requests=ONE * 5, levels=FIVE, ready="TTTFF",
       util=30, value=600),
    rc("TestReplicaCalcScaleDownContainerExcludeUnreadyPods", 5, 2, target=50, requests=ONE * 5, levels=FIVE_C2,
       ready="TTTFF", container="container2", util=30, value=300),
    rc("TestReplicaCalcScaleDownExcludeUnscheduledPods", 5, 1, target=50, requests=ONE * 5, levels=[100], ready="TFFFF",
       phase="RPPPP", util=10, value=200),
    rc("TestReplicaCalcScaleDownContainerExcludeUnscheduledPods", 5, 1, target=50, requests=ONE * 5, levels=FIVE_C2,
       ready="TFFFF", phase="RPPPP", container="container2", util=10, value=100),
    rc("TestReplicaCalcScaleDownIgnoreHotCpuPods", 5, 2, target=50, requests=ONE * 5, levels=FIVE, start="CCCHH",
       util=30, value=600),
    rc("TestReplicaCalcScaleDownContainerIgnoreHotCpuPods", 5, 2, target=50, requests=ONE * 5,
       levels=[[1000, 100], [1000, 300], [1000, 500], [1000, 1000], [1000, 1000]], start="CCCHH", container="container2",
       util=30, value=300),
    rc("TestReplicaCalcScaleDownIgnoresFailedPods", 5, 3, target=50, requests=ONE * 7, levels=FIVE, ready="TTTTTFF",
       phase="RRRRRFF", util=28, value=560),
    rc("TestReplicaCalcScaleDownContainerIgnoresFailedPods", 5, 3, target=50, requests=ONE * 7, levels=FIVE_C2,
       ready="TTTTTFF", phase="RRRRRFF", container="container2", util=28, value=280),
    rc("TestReplicaCalcScaleDownIgnoresDeletionPods", 5, 3, target=50, requests=ONE * 7, levels=FIVE, ready="TTTTTFF",
       phase="RRRRRRR", deleting=".....DD", util=28, value=560),
    rc("TestReplicaCalcScaleDownContainerIgnoresDeletionPods", 5, 3, target=50, requests=ONE * 7, levels=FIVE_C2,
       ready="TTTTTFF", phase="RRRRRRR", deleting=".....DD", container="container2", util=28, value=280, eras=V20),
    rc("TestReplicaCalcScaleDownIgnoresDeletionPods_StillRunning", 5, 3, target=50, requests=ONE * 7, levels=FIVE_C2,
       ready="TTTTTFF", phase="RRRRRRR", deleting=".....DD", container="container2", util=28, value=280, eras=V32),
    rc("TestReplicaCalcTolerance", 3, 3, target=100, requests=[900, 1000, 1100], levels=[1010, 1030, 1020], util=102,
       value=2040),
    rc("TestReplicaCalcToleranceCM", 3, 3, metric="pods", mlevels=[20000, 21000, 21000], mtarget=20000, usage=20666),
    rc("TestReplicaCalcToleranceCMObject", 3, 3, metric="object", mlevels=[20666], mtarget=20000, usage=20666),
    rc("TestReplicaCalcTolerancePerPodCMObject", 4, 4, metric="objectPerPod", mlevels=[20166], mtarget=5000, usage=5042),
    rc("TestReplicaCalcToleranceCMExternal", 3, 3, metric="external", mlevels=[8600], mtarget=8888, usage=8600,
       selector=True),
    rc("TestReplicaCalcTolerancePerPodCMExternal", 3, 3, metric="externalPerPod", mlevels=[8600], mtarget=2900,
       usage=2867, selector=True),
    rc("TestReplicaCalcSuperfluousMetrics", 4, 24, target=100, requests=ONE * 4,
       levels=[4000, 9500, 3000, 7000, 3200, 2000], util=587, value=11750),
    rc("TestReplicaCalcMissingMetrics", 4, 3, target=100, requests=ONE * 4, levels=[400, 95], util=24, value=495),
    rc("TestReplicaCalcEmptyMetrics", 4, target=100, requests=ONE * 3, levels=[],
       err="no metrics returned from resource metrics API",
       note="Upstream expects \"unable to get metrics for resource cpu: no metrics returned from resource metrics API\";\n"
            "the outer words are an error text that changed between releases (docs/behavior.md, not modelled)."),
    rc("TestReplicaCalcEmptyCPURequest", 1, target=100, requests=[], levels=[200], err="missing request for"),
    rc("TestPlainMetricReplicaCalcMissingMetricsNoChangeEq", 5, 5, metric="pods", mlevels=[20000, 19000, 21000],
       mtarget=20000, usage=20000, eras=V32),
    rc("TestReplicaCalcMissingMetricsNoChangeEq", 2, 2, target=100, requests=ONE * 2, levels=[1000], util=100, value=2000),
    rc("TestReplicaCalcMissingMetricsNoChangeGt", 2, 2, target=100, requests=ONE * 2, levels=[1900], util=190, value=3800),
    rc("TestReplicaCalcMissingMetricsNoChangeLt", 2, 2, target=100, requests=ONE * 2, levels=[600], util=60, value=1200),
    rc("TestReplicaCalcMissingMetricsUnreadyChange", 3, 3, target=50, requests=ONE * 3, levels=[100, 450], ready="FTT",
       util=45, value=900),
    rc("TestReplicaCalcMissingMetricsHotCpuNoChange", 3, 3, target=50, requests=ONE * 3, levels=[100, 450], start="HCC",
       util=45, value=900),
    rc("TestReplicaCalcMissingMetricsUnreadyScaleUp", 3, 4, target=50, requests=ONE * 3, levels=[100, 2000],
       ready="FTT", util=200, value=4000),
    rc("TestReplicaCalcMissingMetricsHotCpuScaleUp", 3, 4, target=50, requests=ONE * 3, levels=[100, 2000],
       ready="FTT", start="HCC", util=200, value=4000),
    rc("TestReplicaCalcMissingMetricsUnreadyScaleDown", 4, 3, target=50, requests=ONE * 4, levels=[100, 100, 100],
       ready="FTTT", util=10, value=200),
    rc("TestReplicaCalcMissingMetricsScaleDownTargetOver100", 4, 2, target=300, requests=[1000, 1000, 2000, 2000],
       levels=[200, 100, 100], ready="FTTT", util=6, value=200, eras=V32),
    rc("TestReplicaCalcDuringRollingUpdateWithMaxSurge", 2, 2, target=50, requests=ONE * 3, levels=[100, 100],
       phase="RRR", util=10, value=200),
    rc("TestReplicaCalcDuringRollingUpdateWithMaxSurgeCM", 2, 2, metric="pods", mlevels=[10000, 10000], mtarget=17000,
       usage=10000, phase="RRR", eras=V32),
    # startPods 10, 150m used per pod, requests 2x: target int32(100 x (1/(2 x 0.9) + 0.01)) = 56
    # gives ceil(10 x 1500/(3000 x 0.56556)) = 9; + 0.004 instead gives target 55, within tolerance.
    test("rc", "TestReplicaCalcComputedToleranceAlgImplementation",
         R("first run: target 56", 10, 9, target=56, requests=[400, 200, 310, 290, 302, 298, 301, 299, 300, 300],
           levels=[150] * 10, util=50, value=300),
         R("second run: target 55", 10, 10, target=55, requests=[400, 200, 310, 290, 302, 298, 301, 299, 300, 300],
           levels=[150] * 10, util=50, value=300),
         note="Upstream computes the targets (56, then 55) and the expectation (9, then 10) from tolerance 0.1."),
]

NOW, M1, M3, M10 = 0, -60, -180, -600
GROUP_NOTE = ("groupPods itself, through a whole calculation: each pod gets a CPU (memory) request of 1 (upstream's pods have\n"
              "no containers; grouping never reads requests) and a metric value of 1m, and a ready pod (companion) stands beside\n"
              "them so that the calculation completes; explain's pods[].group is upstream's set (the 1.20 fork's second set,\n"
              "named ignoredPods there, is today's unready set).")
FROM_95560 = ("in v1.20 constructed from kubernetes#95560, which 1.20.0 shipped and the fork predates; "
              "read in the 1.32 table")
RC += [
    test("rc", "TestGroupPods",
         G("count in a ready pod - memory", [("bentham", "Succeeded", None, None, None, False)], {"bentham": (NOW, "1m")},
           {"bentham": "ready"}, resource="memory"),
         G("unready a pod without ready condition - CPU", [("lucretius", "Succeeded", NOW, None, None, False)],
           {"lucretius": (NOW, "1m")}, {"lucretius": "unready"}),
         G("count in a ready pod with fresh metrics during initialization period - CPU",
           [("bentham", "Succeeded", M1, "T", -30, False)], {"bentham": (NOW, "30s")}, {"bentham": "ready"}),
         G("unready a ready pod without fresh metrics during initialization period - CPU",
           [("bentham", "Succeeded", M1, "T", -30, False)], {"bentham": (NOW, "1m")}, {"bentham": "unready"}),
         G("unready an unready pod during initialization period - CPU", [("lucretius", "Succeeded", M10, "F", -594, False)],
           {"lucretius": (NOW, "1m")}, {"lucretius": "unready"}),
         G("count in a ready pod without fresh metrics after initialization period - CPU",
           [("bentham", "Succeeded", M3, "T", M3, False)], {"bentham": (-120, "1m")}, {"bentham": "ready"}),
         G("count in an unready pod that was ready after initialization period - CPU",
           [("lucretius", "Succeeded", M10, "F", -540, False)], {"lucretius": (NOW, "1m")}, {"lucretius": "ready"}),
         G("unready pod that has never been ready after initialization period - CPU",
           [("lucretius", "Succeeded", M10, "F", -590, False)], {"lucretius": (NOW, "1m")}, {"lucretius": "ready"},
           note="the 1.20 fork names it \"ignore pod that has never been ready ...\"; both expect it counted in"),
         G("a missing pod", [("epicurus", "Succeeded", M3, None, None, False)], {}, {"epicurus": "missing"}),
         G("several pods", [("lucretius", "Succeeded", NOW, None, None, False), ("niccolo", "Succeeded", M3, "T", M3, False),
                            ("epicurus", "Succeeded", M3, None, None, False)],
           {"lucretius": (NOW, "1m"), "niccolo": (NOW, "1m")},
           {"lucretius": "unready", "niccolo": "ready", "epicurus": "missing"}),
         G("pending pods are unreadied", [("unscheduled", "Pending", None, None, None, False)], {}, {"unscheduled": "unready"},
           note="the 1.20 fork: \"pending pods are ignored\", in the set that is today's unready set"),
         G("ignore pods with deletion timestamps", [("deleted", "Pending", None, None, None, True)], {"deleted": (NOW, "1m")},
           {"deleted": "ignored"}, note=FROM_95560),
         G("ignore pods in a failed state", [("failed", "Failed", None, None, None, False)], {"failed": (NOW, "1m")},
           {"failed": "ignored"}, note=FROM_95560),
         note=GROUP_NOTE),
    test("rc", "TestCalculatePodRequests",
         Q("pod with regular containers", [("container1", 100), ("container2", 50)], [], None, 150),
         Q("calculate requests with special container", [("container1", 100), ("container2", 50)], [], "container1", 100),
         Q("container missing requests", [("container1", None)], [], None,
           err="missing request for cpu in container container1 of Pod test-pod"),
         Q("pod with restartable init containers", [("container1", 100)],
           [("init-container1", 20, False), ("restartable-container1", 50, True)], None, 150),
         note="calculatePodRequests through a whole calculation: explain's pods[].requestMilli is its answer."),
]

# --- horizontal_test.go ------------------------------------------------------------------------

THREE = [1000] * 3
FIVE_REQ = [1000] * 5
MIXED = [900, 1000, 1100]
DEP = ("Deployment", "apps/v1", "test-dep")
RS = ("ReplicaSet", "apps/v1", "test-replicaset")


def ct(name, *args, **kw):
    return test("ctrl", name, C(name, *args, **kw), note=kw.get("note"))


CTRL = [
    ct("TestScaleUp", 2, 6, 3, 3, 5, cpu=30, verify_cpu=True, levels=[300, 500, 700], requests=THREE),
    ct("TestScaleUpContainer", 2, 6, 3, 3, 5, metrics=[m_container("container1", 30)], levels=[300, 500, 700],
       requests=THREE),
    ct("TestScaleUpUnreadyLessScale", 2, 6, 3, 3, 4, cpu=30, cpu_current=60, verify_cpu=True, levels=[300, 500, 700],
       requests=THREE, ready="FTT"),
    ct("TestScaleUpHotCpuLessScale", 2, 6, 3, 3, 4, cpu=30, cpu_current=60, verify_cpu=True, levels=[300, 500, 700],
       requests=THREE, start="HCC"),
    ct("TestScaleUpUnreadyNoScale", 2, 6, 3, 3, 3, cpu=30, cpu_current=40, verify_cpu=True, levels=[400, 500, 700],
       requests=THREE, ready="TFF", conds=ok(RFNS)),
    ct("TestScaleUpHotCpuNoScale", 2, 6, 3, 3, 3, cpu=30, cpu_current=40, verify_cpu=True, levels=[400, 500, 700],
       requests=THREE, ready="TFF", start="CHH", conds=ok(RFNS)),
    ct("TestScaleUpIgnoresFailedPods", 2, 6, 2, 2, 4, cpu=30, cpu_current=60, verify_cpu=True, levels=[500, 700],
       requests=[1000] * 4, ready="TTFF", phase="RRFF"),
    ct("TestScaleUpIgnoresDeletionPods", 2, 6, 2, 2, 4, cpu=30, cpu_current=60, verify_cpu=True, levels=[500, 700],
       requests=[1000] * 4, ready="TTFF", phase="RRRR", deleting="..DD"),
    ct("TestScaleUpDeployment", 2, 6, 3, 3, 5, cpu=30, verify_cpu=True, levels=[300, 500, 700], requests=THREE, target=DEP),
    ct("TestScaleUpReplicaSet", 2, 6, 3, 3, 5, cpu=30, verify_cpu=True, levels=[300, 500, 700], requests=THREE, target=RS),
    ct("TestScaleUpCM", 2, 6, 3, 3, 4, metrics=[m_pods(15000)], levels=[20000, 10000, 30000], requests=THREE),
    ct("TestScaleUpCMUnreadyAndHotCpuNoLessScale", 2, 6, 3, 3, 6, metrics=[m_pods(15000)], levels=[50000, 10000, 30000],
       requests=THREE, ready="TTF", start="CCH"),
    ct("TestScaleUpCMUnreadyandCpuHot", 2, 6, 3, 3, 6, metrics=[m_pods(15000)], levels=[50000, 15000, 30000],
       requests=THREE, ready="FTF", start="HCH", conds=ok(TOO_MANY)),
    ct("TestScaleUpHotCpuNoScaleWouldScaleDown", 2, 6, 3, 3, 6, metrics=[m_pods(15000)], levels=[50000, 15000, 30000],
       requests=THREE, start="HCH", conds=ok(TOO_MANY)),
    ct("TestScaleUpCMObject", 2, 6, 3, 3, 4, metrics=[m_object(15000)], levels=[20000]),
    ct("TestScaleUpFromZeroCMObject", 0, 6, 0, 0, 2, metrics=[m_object(15000)], levels=[20000]),
    ct("TestScaleUpFromZeroIgnoresToleranceCMObject", 0, 6, 0, 0, 1, metrics=[m_object(1000)], levels=[1000]),
    ct("TestScaleUpPerPodCMObject", 2, 6, 3, 3, 4, metrics=[m_object(10000, average=True)], levels=[40000]),
    ct("TestScaleUpCMExternal", 2, 6, 3, 3, 4, metrics=[m_external(6666)], levels=[8600]),
    ct("TestScaleUpPerPodCMExternal", 2, 6, 3, 3, 4, metrics=[m_external(2222, average=True)], levels=[8600]),
    ct("TestScaleDown", 2, 6, 5, 5, 3, cpu=50, verify_cpu=True, levels=FIVE, requests=FIVE_REQ, recs=[]),
    ct("TestScaleDownContainerResource", 2, 6, 5, 5, 3, metrics=[m_container("container2", 50)], levels=FIVE,
       requests=FIVE_REQ, recs=[]),
    ct("TestScaleDownWithScalingRules", 2, 6, 5, 5, 3, up=rules(0, 0, 100, 15, 30), cpu=50, verify_cpu=True, levels=FIVE,
       requests=FIVE_REQ, recs=[]),
    ct("TestScaleUpOneMetricInvalid", 2, 6, 3, 3, 4, cpu=30, verify_cpu=True, metrics=[CHEDDAR], levels=[300, 400, 500],
       requests=THREE),
    ct("TestScaleUpFromZeroOneMetricInvalid", 0, 6, 0, 0, 4, cpu=30, verify_cpu=True, metrics=[CHEDDAR],
       levels=[300, 400, 500], requests=THREE, recs=[]),
    ct("TestScaleUpBothMetricsEmpty", 2, 6, 3, 3, 3, metrics=[CHEDDAR], levels=[], requests=THREE,
       conds=inactive("InvalidMetricSourceType")),
    ct("TestScaleDownStabilizeInitialSize", 2, 6, 5, 5, 5, cpu=50, verify_cpu=True, levels=FIVE, requests=FIVE_REQ,
       recs=None, conds=ok(DOWN_STABILIZED)),
    ct("TestScaleDownCM", 2, 6, 5, 5, 3, metrics=[m_pods(20000)], levels=[12000] * 5, requests=FIVE_REQ, recs=[]),
    ct("TestScaleDownCMObject", 2, 6, 5, 5, 3, metrics=[m_object(20000)], levels=[12000], requests=FIVE_REQ, recs=[]),
    ct("TestScaleDownToZeroCMObject", 0, 6, 5, 5, 0, metrics=[m_object(20000)], levels=[0], requests=FIVE_REQ, recs=[]),
    ct("TestScaleDownPerPodCMObject", 2, 6, 5, 5, 3, metrics=[m_object(20000, average=True)], levels=[60000],
       requests=FIVE_REQ, recs=[]),
    ct("TestScaleDownCMExternal", 2, 6, 5, 5, 3, metrics=[m_external(14400)], levels=[8600], recs=[]),
    ct("TestScaleDownToZeroCMExternal", 0, 6, 5, 5, 0, metrics=[m_external(14400)], levels=[0], recs=[]),
    ct("TestScaleDownPerPodCMExternal", 2, 6, 5, 5, 3, metrics=[m_external(3000, average=True)], levels=[8600], recs=[]),
    ct("TestScaleDownIncludeUnreadyPods", 2, 6, 5, 5, 2, cpu=50, cpu_current=30, verify_cpu=True, levels=FIVE,
       requests=FIVE_REQ, ready="TTTFF", recs=[]),
    ct("TestScaleDownOneMetricInvalid", 2, 6, 5, 5, 3, cpu=50, metrics=[CHEDDAR], levels=FIVE, requests=FIVE_REQ, recs=[],
       eras=V20),
    ct("TestScaleDownOneMetricEmpty", 2, 6, 5, 5, 3, cpu=50, metrics=[m_external(1000, average=True)], levels=FIVE,
       requests=FIVE_REQ, recs=[], absent=["external"], eras=V20,
       note="Upstream's External metrics client fails (\"something went wrong\"); here its answer is absent, which fails the\n"
            "metric the same way (explain: an absent answer is an API that returned nothing)."),
    ct("TestScaleDownIgnoreHotCpuPods", 2, 6, 5, 5, 2, cpu=50, cpu_current=30, verify_cpu=True, levels=FIVE,
       requests=FIVE_REQ, start="CCCHH", recs=[]),
    ct("TestScaleDownIgnoresFailedPods", 2, 6, 5, 5, 3, cpu=50, cpu_current=28, verify_cpu=True, levels=FIVE,
       requests=[1000] * 7, ready="TTTTTFF", phase="RRRRRFF", recs=[]),
    ct("TestScaleDownIgnoresDeletionPods", 2, 6, 5, 5, 3, cpu=50, cpu_current=28, verify_cpu=True, levels=FIVE,
       requests=[1000] * 7, ready="TTTTTFF", phase="RRRRRRR", deleting=".....DD", recs=[]),
    ct("TestTolerance", 1, 5, 3, 3, 3, cpu=100, levels=[1010, 1030, 1020], requests=MIXED, conds=ok(RFNS)),
    ct("TestToleranceCM", 1, 5, 3, 3, 3, metrics=[m_pods(20000)], levels=[20000, 20001, 21000], requests=MIXED,
       conds=ok(RFNS)),
    ct("TestToleranceCMObject", 1, 5, 3, 3, 3, metrics=[m_object(20000)], levels=[20050], requests=MIXED, conds=ok(RFNS)),
    ct("TestToleranceCMExternal", 2, 6, 4, 4, 4, metrics=[m_external(8666)], levels=[8600], conds=ok(RFNS)),
    ct("TestTolerancePerPodCMObject", 2, 6, 4, 4, 4, metrics=[m_object(2200, average=True, selector=True)], levels=[8600],
       conds=ok(RFNS)),
    ct("TestTolerancePerPodCMExternal", 2, 6, 4, 4, 4, metrics=[m_external(2200, average=True)], levels=[8600],
       conds=ok(RFNS)),
    ct("TestMinReplicas", 2, 5, 3, 3, 2, cpu=90, levels=[10, 95, 10], requests=MIXED, conds=ok(TOO_FEW), recs=[]),
    ct("TestZeroMinReplicasDesiredZero", 0, 5, 3, 3, 0, cpu=90, levels=[0, 0, 0], requests=MIXED,
       conds=ok(("ScalingLimited", "False", "DesiredWithinRange")), recs=[]),
    ct("TestMinReplicasDesiredZero", 2, 5, 3, 3, 2, cpu=90, levels=[0, 0, 0], requests=MIXED, conds=ok(TOO_FEW), recs=[]),
    ct("TestZeroReplicas", 3, 5, 0, 0, 0, cpu=90, levels=[], requests=[], conds=inactive("ScalingDisabled")),
    ct("TestTooFewReplicas", 3, 5, 2, 2, 3, cpu=90, levels=[], requests=[], conds=RESCALED),
    ct("TestTooManyReplicas", 3, 5, 10, 10, 5, cpu=90, levels=[], requests=[], conds=RESCALED),
    ct("TestMaxReplicas", 2, 5, 3, 3, 5, cpu=90, levels=[8000, 9500, 1000], requests=MIXED, conds=ok(TOO_MANY)),
    ct("TestSuperfluousMetrics", 2, 6, 4, 4, 6, cpu=100, levels=[4000, 9500, 3000, 7000, 3200, 2000],
       requests=[1000] * 4, conds=ok(TOO_MANY)),
    ct("TestMissingMetrics", 2, 6, 4, 4, 3, cpu=100, levels=[400, 95], requests=[1000] * 4, recs=[]),
    ct("TestEmptyMetrics", 2, 6, 4, 4, 4, cpu=100, levels=[], requests=[1000] * 4,
       conds=inactive("FailedGetResourceMetric")),
    ct("TestEmptyCPURequest", 1, 5, 1, 1, 1, cpu=100, levels=[200], requests=[],
       conds=inactive("FailedGetResourceMetric"),
       note="Upstream's empty (non-nil) request list makes the harness create no pods at all; so here."),
    ct("TestEventCreated", 1, 5, 1, 1, 2, cpu=50, levels=[200], requests=[200],
       events=[("SuccessfulRescale", "New size: 2; reason: cpu resource utilization (percentage of request) above target")]),
    ct("TestEventNotCreated", 1, 5, 2, 2, 2, cpu=50, levels=[200, 200], requests=[400, 400], events=[], conds=ok(RFNS)),
    ct("TestMissingReports", 1, 5, 4, 4, 2, cpu=50, levels=[200], requests=[200], recs=[]),
    ct("TestUpscaleCap", 1, 100, 3, 3, 24, up=rules(0, 0, 700, 60, 0), cpu=10, levels=[100, 200, 300],
       requests=[100] * 3, conds=ok(("ScalingLimited", "True", "ScaleUpLimit"))),
    ct("TestUpscaleCapGreaterThanMaxReplicas", 1, 20, 3, 3, 20, up=rules(0, 0, 700, 60, 0), cpu=10,
       levels=[100, 200, 300], requests=[100] * 3, conds=ok(TOO_MANY)),
    ct("TestMoreReplicasThanSpecNoScale", 1, 8, 4, 5, 4, cpu=50, levels=[500] * 5, requests=FIVE_REQ, conds=ok(RFNS)),
    ct("TestConditionInvalidSelectorMissing", 1, 100, 3, 3, 3, cpu=10, levels=[100, 200, 300], requests=[100] * 3,
       scale_selector=None, conds=inactive("InvalidSelector")),
    ct("TestConditionInvalidSelectorUnparsable", 1, 100, 3, 3, 3, cpu=10, levels=[100, 200, 300], requests=[100] * 3,
       scale_selector="cheddar cheese", conds=inactive("InvalidSelector")),
    test("ctrl", "TestConditionNoAmbiguousSelectorWhenNoSelectorOverlapBetweenHPAs",
         C("TestConditionNoAmbiguousSelectorWhenNoSelectorOverlapBetweenHPAs", 2, 6, 3, 3, 5, cpu=30,
           levels=[300, 500, 700], requests=THREE, other_hpa="cheddar=cheese", eras=V32),
         note="Upstream puts test-hpa-2's selector into the controller's selector map; here test-hpa-2 and its Scale are in\n"
              "the snapshot, which explain counts as reconciled once."),
    test("ctrl", "TestConditionAmbiguousSelectorWhenFullSelectorOverlapBetweenHPAs",
         C("TestConditionAmbiguousSelectorWhenFullSelectorOverlapBetweenHPAs", 2, 6, 3, 3, 3, cpu=30,
           levels=[300, 500, 700], requests=THREE, other_hpa="name=test-pod", conds=inactive("AmbiguousSelector"),
           eras=V32),
         note="test-hpa-2 (selector name=test-pod) is in the snapshot with its Scale, as upstream's selector map holds it."),
    test("ctrl", "TestConditionAmbiguousSelectorWhenPartialSelectorOverlapBetweenHPAs",
         C("TestConditionAmbiguousSelectorWhenPartialSelectorOverlapBetweenHPAs", 2, 6, 3, 3, 3, cpu=30,
           levels=[300, 500, 700], requests=THREE, other_hpa="cheddar=cheese", bare_pods=True,
           pod_labels={"name": "test-pod", "cheddar": "cheese"}, conds=inactive("AmbiguousSelector"), eras=V32),
         note="Upstream's pod list gives bare pods labelled name=test-pod and cheddar=cheese; test-hpa-2 selects cheddar=cheese."),
    test("ctrl", "TestConditionFailedGetMetrics",
         *[C(reason, 1, 100, 3, 3, 3, cpu=cpu, metrics=metrics, levels=[100, 200, 300], requests=[100] * 3,
             absent=["resource", "pods", "object", "external"], conds=inactive(reason))
           for reason, cpu, metrics in [("FailedGetResourceMetric", 10, []),
                                        ("FailedGetPodsMetric", 0, [m_pods(15000)]),
                                        ("FailedGetObjectMetric", 0, [m_object(15000)]),
                                        ("FailedGetExternalMetric", 0, [m_external(300)])]],
         note="Upstream makes each metrics client fail (\"something went wrong\"); here their answers are absent, which fails\n"
              "each metric the same way (an absent answer is an API that returned nothing). One subcase per map entry."),
    ct("TestConditionInvalidSourceType", 2, 6, 3, 3, 3, metrics=[CHEDDAR], levels=[20000],
       conds=inactive("InvalidMetricSourceType")),
    ct("TestConditionFailedGetScale", 1, 100, 3, 3, 3, cpu=10, levels=[100, 200, 300], requests=[100] * 3, no_scale=True,
       conds=[("AbleToScale", "False", "FailedGetScale")],
       note="Upstream's Scale GET fails; here the Scale is absent from the snapshot (explain: a failed scale GET)."),
    ct("TestNoBackoffUpscaleCM", 1, 5, 3, 3, 4, metrics=[m_pods(15000)], levels=[20000, 10000, 30000], requests=THREE,
       last_scale=0),
    ct("TestNoBackoffUpscaleCMNoBackoffCpu", 1, 5, 3, 3, 5, cpu=10, metrics=[m_pods(15000)],
       levels=[20000, 10000, 30000], requests=THREE, last_scale=0, conds=ok(TOO_MANY)),
    ct("TestStabilizeDownscale", 1, 5, 4, 4, 4, cpu=100, levels=[50, 50, 50], requests=[100] * 3,
       recs=[(10, -600), (4, -60)], conds=ok(DOWN_STABILIZED)),
    test("ctrl", "TestComputedToleranceAlgImplementation",
         C("tc1: target 56", 0, 1000, 10, 10, 9, cpu=56, levels=[150] * 10,
           requests=[400, 200, 310, 290, 302, 298, 301, 299, 300, 300], recs=[]),
         C("tc2: target 55", 0, 1000, 10, 10, 10, cpu=55, levels=[150] * 10,
           requests=[400, 200, 310, 290, 302, 298, 301, 299, 300, 300], recs=[], conds=ok(RFNS)),
         note="Upstream computes the targets (56, then 55) and the expectations (9, then 10) from tolerance 0.1."),
    ct("TestScaleUpRCImmediately", 2, 6, 1, 1, 2, levels=[0] * 4, requests=[1000] * 4, last_scale=0, conds=RESCALED,
       note="No metric target (upstream: a CPU metric without one, read as the autoscaling/v1 default 80 %); the count is\n"
            "below minReplicas, so no metric is read."),
    ct("TestScaleDownRCImmediately", 2, 5, 6, 6, 5, cpu=50, levels=[8000, 9500, 1000], requests=MIXED, last_scale=0,
       conds=RESCALED),
]

AVOID_STATUS = {
    "currentReplicas": 2, "desiredReplicas": 2, "lastScaleTime": ts(-3600),
    "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageValue": "400m", "averageUtilization": 40}}}],
    "conditions": [
        {"type": "AbleToScale", "status": "True", "lastTransitionTime": ts(-3600), "reason": "ReadyForNewScale",
         "message": "recommended size matches current size"},
        {"type": "ScalingActive", "status": "True", "lastTransitionTime": ts(-3600), "reason": "ValidMetricFound",
         "message": "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)"},
        {"type": "ScalingLimited", "status": "True", "lastTransitionTime": ts(-3600), "reason": "TooFewReplicas",
         "message": "the desired replica count is less than the minimum replica count"}]}

CTRL += [
    test("ctrl", "TestAvoidUnnecessaryUpdates",
         C("TestAvoidUnnecessaryUpdates", 2, 6, 2, 2, 2, cpu=80, cpu_current=40, verify_cpu=True, levels=[400, 500, 700],
           requests=THREE, start="CHH", recs=[], status=AVOID_STATUS, extra=["statusChanged == false"],
           conds=[RFNS, ("ScalingActive", "True", "ValidMetricFound"), TOO_FEW]),
         note="The HPA already carries the status this reconcile computes; upstream fails if the status is written, here\n"
              "statusChanged must be false. Target 80 %: the 1.31 HPA says 80, the 1.20 one leaves it to the v1 default (80).\n"
              "AbleToScale's message text: upstream's stored message matches ours, so the status is unchanged."),
]


def nt(name, *subcases, note=None):
    return test("norm", name, *subcases, note=note)


NORM_NOTE = ("The prenormalized count is the proposal of an External AverageValue metric (target 1, value = the count);\n"
             "tolerance 0 so that it is proposed exactly. ")

CTRL += [
    nt("TestConvertDesiredReplicasWithRules",
       N("prenormalized desired replicas within range", 5, 7, 7, cond="DesiredWithinRange", min_r=3, max_r=8),
       N("prenormalized desired replicas < minReplicas", 3, 1, 2, cond="TooFewReplicas", min_r=2, max_r=8),
       N("prenormalized desired zeroed replicas within range", 1, 0, 0, cond="DesiredWithinRange", min_r=0, max_r=10),
       N("scaleUpLimit is the limit because scaleUpLimit < maxReplicas", 3, 1000, 6, cond="ScaleUpLimit", max_r=2000,
         note="upstream expects calculateScaleUpLimit(3): 24 in its test binary, whose init() raises scaleUpLimitFactor "
              "to 8; kube-controller-manager's factor 2 gives 6"),
       note=NORM_NOTE + "No behavior: convertDesiredReplicasWithRules' limits, after the old stabilization (empty history)."),
    nt("TestCalculateScaleUpLimitWithScalingRules",
       N("TestCalculateScaleUpLimitWithScalingRules", 1, 10, 2, up=rules(2, 60, 50, 60, 300, select="Min"), up_limit=2),
       note=NORM_NOTE + "calculateScaleUpLimitWithScalingRules(1, no events, Min of 2 pods / 50 % per 60 s) = 2."),
    nt("TestCalculateScaleDownLimitWithBehaviors",
       N("TestCalculateScaleDownLimitWithBehaviors", 5, 1, 3, down=rules(2, 60, 50, 60, 300, select="Min"), down_limit=3),
       note=NORM_NOTE + "calculateScaleDownLimitWithBehaviors(5, no events, Min of 2 pods / 50 % per 60 s) = 3."),
    nt("TestNormalizeDesiredReplicas",
       N("empty log", 10, 5, None, stabilized=5, rec_count=1),
       N("stabilize", 10, 3, None, recs=[(4, -120), (5, -60)], stabilized=5, rec_count=3),
       N("no stabilize", 10, 3, None, recs=[(1, -120), (2, -60)], stabilized=3, rec_count=3),
       N("no stabilize - old recommendations", 10, 3, None, recs=[(10, -600), (9, -540)], stabilized=3, rec_count=2),
       N("stabilize - old recommendations", 10, 3, None, recs=[(10, -600), (4, -60), (5, -120), (9, -540)], stabilized=5,
         rec_count=4),
       note=NORM_NOTE + "stabilizeRecommendation with a 5 min window (no behavior), the log length after it; upstream\n"
                        "passes no current count, 10 here (above every proposal, so the window alone decides)."),
]


def swr(name, current, prenorm, expected, cond, min_r=1, max_r=1000, **kw):
    return N(name, current, prenorm, expected, cond=cond, min_r=min_r, max_r=max_r, behavior=True, **kw)


U159 = uniform([1, 5, 9])
CTRL += [
    nt("TestScalingWithRules",
       swr("prenormalized desired replicas within range", 5, 7, 7, "DesiredWithinRange", 3, 8),
       swr("prenormalized desired replicas < minReplicas", 3, 1, 2, "TooFewReplicas", 2, 8),
       swr("prenormalized desired replicas within range when minReplicas is 0", 1, 0, 0, "DesiredWithinRange", 0, 10),
       swr("desired replica count is more than the maximum replica count", 100, 1000, 150, "TooManyReplicas", 100, 150),
       swr("scaleUpLimit is the limit because scaleUpLimit < maxReplicas with user policies", 3, 1000, 4, "ScaleUpLimit",
           1, 2000, up=rules(0, 0, 1, 60, 0)),
       swr("scaleDownLimit is the limit because scaleDownLimit > minReplicas with user defined policies", 1000, 3, 980,
           "ScaleDownLimit", 3, 2000, down=rules(20, 60, 0, 0, 0),
           note="upstream's runner skips this case (testThis); converted anyway"),
       swr("scaleUp with default behavior", 10, 50, 20, "ScaleUpLimit"),
       swr("scaleUp with pods policy larger than percent policy", 10, 500, 110, "ScaleUpLimit", up=rules(100, 60, 100, 60, 0)),
       swr("scaleUp with percent policy larger than pods policy", 10, 500, 20, "ScaleUpLimit", up=rules(2, 60, 100, 60, 0)),
       swr("scaleUp with spec MaxReplicas limitation with large pod policy", 10, 50, 50, "DesiredWithinRange",
           up=rules(100, 60, 0, 0, 0)),
       swr("scaleUp with spec MaxReplicas limitation with large percent policy", 10, 50, 50, "DesiredWithinRange",
           up=rules(10000, 60, 0, 0, 0)),
       swr("scaleUp with pod policy limitation", 10, 50, 40, "ScaleUpLimit", up=rules(30, 60, 0, 0, 0)),
       swr("scaleUp with percent policy limitation", 10, 50, 30, "ScaleUpLimit", up=rules(0, 0, 200, 60, 0)),
       swr("scaleDown with percent policy larger than pod policy", 100, 2, 80, "ScaleDownLimit",
           down=rules(20, 60, 1, 60, 300)),
       swr("scaleDown with pod policy larger than percent policy", 100, 2, 98, "ScaleDownLimit",
           down=rules(2, 60, 1, 60, 300)),
       swr("scaleDown with spec MinReplicas=nil limitation with large pod policy", 10, 0, 1, "TooFewReplicas",
           down=rules(100, 60, 0, 0, 300)),
       swr("scaleDown with spec MinReplicas limitation with large pod policy", 10, 0, 1, "TooFewReplicas",
           down=rules(100, 60, 0, 0, 300)),
       swr("scaleDown with spec MinReplicas limitation with large percent policy", 10, 2, 5, "TooFewReplicas", 5,
           down=rules(0, 0, 100, 60, 300)),
       swr("scaleDown with pod policy limitation", 10, 2, 5, "ScaleDownLimit", down=rules(5, 60, 0, 0, 300)),
       swr("scaleDown with percent policy limitation", 10, 5, 5, "DesiredWithinRange", down=rules(0, 0, 50, 60, 300)),
       swr("scaleUp with spec MaxReplicas limitation with large pod policy and events", 100, 500, 200, "TooManyReplicas",
           1, 200, up=rules(300, 60, 0, 0, 0), up_events=U159),
       swr("scaleUp with spec MaxReplicas limitation with large percent policy and events", 100, 500, 200,
           "TooManyReplicas", 1, 200, up=rules(0, 0, 10000, 60, 0), up_events=U159),
       swr("scaleUp with currentReplicas limitation with rate.PeriodSeconds with a lot of recent scale up events",
           100, 500, 100, "ScaleUpLimit", up=rules(5, 120, 0, 0, 0), up_events=U159),
       swr("scaleUp with pod policy and previous scale up events", 100, 500, 235, "ScaleUpLimit",
           up=rules(150, 120, 0, 0, 0), up_events=U159),
       swr("scaleUp with percent policy and previous scale up events", 100, 500, 255, "ScaleUpLimit",
           up=rules(0, 0, 200, 120, 0), up_events=U159),
       swr("scaleUp with percent policy and previous scale up and down events", 6, 24, 16, "ScaleUpLimit",
           up=rules(0, 0, 300, 300, 0), up_events=uniform([4]), down_events=uniform([2]), eras=V32),
       swr("scaleDown with default policy and previous events", 10, 5, 5, "DesiredWithinRange", down_events=U159),
       swr("scaleDown with spec MinReplicas=nil limitation with large pod policy and previous events", 100, 0, 1,
           "TooFewReplicas", down=rules(115, 120, 0, 0, 300), down_events=U159),
       swr("scaleDown with spec MinReplicas limitation with large pod policy and previous events", 100, 0, 5,
           "TooFewReplicas", 5, down=rules(130, 120, 0, 0, 300), down_events=U159),
       swr("scaleDown with spec MinReplicas limitation with large percent policy and previous events", 100, 2, 5,
           "TooFewReplicas", 5, down=rules(0, 0, 100, 120, 300), down_events=U159),
       swr("scaleDown with pod policy limitation and previous events", 100, 2, 100, "ScaleDownLimit",
           down=rules(5, 120, 0, 0, 300), down_events=U159),
       swr("scaleDown with percent policy limitation and previous events", 100, 0, 56, "ScaleDownLimit",
           down=rules(0, 0, 50, 120, 300), down_events=uniform([2, 4, 6])),
       swr("scaleDown with percent policy and previous scale up and down events", 10, 1, 6, "ScaleDownLimit",
           down=rules(0, 0, 50, 180, 0), up_events=uniform([2]), down_events=uniform([4]), eras=V32),
       swr("scaleDown with previous events preventing further scale down", 100, 0, 100, "ScaleDownLimit",
           down=rules(0, 0, 10, 120, 300), down_events=uniform([10, 10, 10])),
       swr("scaleDown with with previous events still allowing more scale down", 10, 5, 5, "DesiredWithinRange",
           down=rules(0, 0, 1000, 120, 300), down_events=uniform([10, 10, 10])),
       swr("check 'outdated' flag for events for one behavior for up", 100, 200, 200, "DesiredWithinRange",
           up=rules(1000, 60, 0, 0, 0), up_events=uniform([8, 12, 9, 11])),
       swr("check that events were not marked 'outdated' for two different policies in the behavior for up", 100, 200,
           200, "DesiredWithinRange", up=rules(1000, 120, 100, 60, 0), up_events=uniform([8, 12, 9, 11])),
       swr("check that events were marked 'outdated' for two different policies in the behavior for up", 100, 200, 200,
           "DesiredWithinRange", up=rules(1000, 30, 100, 60, 0), up_events=uniform([8, 12, 9, 11])),
       swr("check 'outdated' flag for events for one behavior for down", 100, 5, 5, "DesiredWithinRange",
           down=rules(1000, 60, 0, 0, 300), down_events=uniform([8, 12, 9, 11])),
       swr("check that events were not marked 'outdated' for two different policies in the behavior for down", 100, 5,
           5, "DesiredWithinRange", down=rules(1000, 120, 100, 60, 300), down_events=uniform([8, 12, 9, 11])),
       swr("check that events were marked 'outdated' for two different policies in the behavior for down", 100, 5, 5,
           "DesiredWithinRange", down=rules(1000, 30, 100, 60, 300), down_events=uniform([8, 12, 9, 11])),
       note=NORM_NOTE + "Upstream calls convertDesiredReplicasWithBehaviorRate (the rates) with Generate*Rules' defaults for a\n"
                        "missing direction; here the HPA has that behavior and an empty recommendation history, so stabilization\n"
                        "keeps the proposal. Scale events as generateEventsUniformDistribution spreads them over 120 s."),
]


def nb(name, current, prenorm, stabilized, recs, rec_values=None, up_window=0, down_window=0, eras=("v1.20", "v1.32")):
    return N(name, current, prenorm, None, up={"stabilizationWindowSeconds": up_window},
             down={"stabilizationWindowSeconds": down_window}, recs=recs, stabilized=stabilized, rec_values=rec_values,
             eras=eras)


CTRL += [
    nt("TestNormalizeDesiredReplicasWithBehavior",
       nb("empty recommendations for scaling down", 100, 5, 5, [], [5]),
       nb("simple scale down stabilization", 100, 3, 5, [(4, -120), (5, -60)], [4, 5, 3], down_window=180),
       nb("simple scale up stabilization", 1, 7, 4, [(4, -120), (5, -60)], [4, 5, 7], up_window=300),
       nb("no scale down stabilization", 100, 3, 3, [(1, -120), (2, -60)], [1, 2, 3], up_window=300),
       nb("no scale up stabilization", 1, 3, 3, [(4, -120), (5, -60)], [4, 5, 3], down_window=300),
       nb("no scale down stabilization, reuse recommendation element", 100, 3, 3, [(10, -600), (9, -540)], [10, 3]),
       nb("no scale up stabilization, reuse recommendation element", 1, 100, 100, [(10, -600), (9, -540)], [10, 100]),
       nb("scale down stabilization, reuse one of obsolete recommendation element", 100, 3, 5,
          [(10, -600), (4, -60), (5, -120), (9, -540)], [10, 4, 5, 3], down_window=180),
       nb("scale up stabilization, reuse one of obsolete recommendation element", 1, 100, 5,
          [(10, -6000), (6, -60), (5, -120), (9, -180)], [100, 6, 5, 9], up_window=300),
       nb("scale up and down stabilization, do not scale up when prenormalized rec goes down", 2, 1, 2,
          [(2, -6000), (3, -180)], up_window=300, down_window=300, eras=V32),
       nb("scale up and down stabilization, do not scale down when prenormalized rec goes up", 2, 3, 2,
          [(2, -6000), (1, -180)], up_window=300, down_window=300, eras=V32),
       note=NORM_NOTE + "Upstream calls stabilizeRecommendationWithBehaviors with the two windows (0 where the case gives\n"
                        "none); explain's normalization.stabilized is its answer and history.recommendations the list it keeps."),
]

CTRL += [
    ct("TestScaleUpOneMetricEmpty", 2, 6, 3, 3, 4, cpu=30, verify_cpu=True, metrics=[m_external(100)],
       levels=[300, 400, 500], requests=THREE, absent=["external"],
       note="Upstream's External metrics client fails; here its answer is absent (the same failed metric)."),
    ct("TestNoScaleDownOneMetricInvalid", 2, 6, 5, 5, 5, cpu=50, metrics=[CHEDDAR], levels=FIVE, requests=FIVE_REQ,
       recs=None, conds=[DOWN_STABILIZED, ("ScalingActive", "True", "ValidMetricFound"),
                         ("ScalingLimited", "False", "DesiredWithinRange")], eras=V20,
       note="1.20's version: no recommendations given, so the controller seeds one with 5 and stabilizes at it."),
    ct("TestNoScaleDownOneMetricInvalid", 2, 6, 5, 5, 5, cpu=50, metrics=[CHEDDAR], levels=FIVE, requests=FIVE_REQ,
       recs=[], conds=inactive("InvalidMetricSourceType"), eras=V32,
       note="1.31's version (kubernetes#99514, 1.21): an empty history, and the invalid metric holds the scale-down back."),
    ct("TestNoScaleDownOneMetricEmpty", 2, 6, 5, 5, 5, cpu=50, metrics=[m_external(1000)], levels=FIVE, requests=FIVE_REQ,
       recs=None, absent=["external"], conds=[DOWN_STABILIZED, ("ScalingActive", "True", "ValidMetricFound"),
                                              ("ScalingLimited", "False", "DesiredWithinRange")], eras=V20,
       note="1.20's version: no recommendations given (seeded with 5). The External client's failure is an absent answer here."),
    ct("TestNoScaleDownOneMetricEmpty", 2, 6, 5, 5, 5, cpu=50, metrics=[m_external(1000)], levels=FIVE, requests=FIVE_REQ,
       recs=[], absent=["external"], conds=inactive("FailedGetExternalMetric"), eras=V32,
       note="1.31's version: an empty history; the failed External metric (an absent answer here) holds the scale-down back."),
]

CASES = RC + CTRL

INEXPRESSIBLE = [
    ("rc", "TestGroupPods: void", "groups an empty pod list; with no pods the calculator stops before grouping "
     "(\"no pods returned by selector\"), so the empty grouping has no explain form", ("v1.20", "v1.32")),
    ("rc", "TestCalculatePodRequests: void", "sums the requests of an empty pod list; with no pods the calculator stops "
     "before summing", ("v1.32",)),
    ("ctrl", "TestConvertDesiredReplicasWithRules: maxReplicas is the limit because maxReplicas < scaleUpLimit",
     "the current count (20) is above maxReplicas (10): the controller scales to maxReplicas in its above-maximum branch "
     "before any metric or normalization (desired 10, but no ScalingLimited condition), so the normalization function is "
     "never reached with these inputs", ("v1.20", "v1.32")),
    ("ctrl", "TestScalingWithRules: maxReplicas is the limit because maxReplicas < scaleUpLimit",
     "the same inputs as the subcase above (current 20 above maxReplicas 10): decided before normalization",
     ("v1.20", "v1.32")),
    ("ctrl", "TestConditionFailedUpdateScale", "needs the Scale update to fail (FailedUpdateScale); explain writes nothing, "
     "so there is no update that could fail", ("v1.20", "v1.32")),
    ("ctrl", "TestStoreScaleEvents", "calls storeScaleEvent with a change of ±5 from 10 and getReplicasChangePerPeriod "
     "directly; in a reconcile the change first passes the rate limits of the same behavior (7 pods in the period "
     "already limit it to 13), so the events stored differ, and the period's sum is not shown", ("v1.20", "v1.32")),
    ("ctrl", "TestMultipleHPAs", "throughput of the running controller: 1000 HPAs must all be reconciled within 15 s; "
     "it asserts no decision", ("v1.32",)),
]

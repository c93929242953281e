"""Labels from several sources: their agreement, and what they change in the conclusions.

Relevance labels come from annotators, from clicks and purchases, and from LLM judges. This
package puts two or more label sources side by side:

* :mod:`metrics.labels.sources` reads them (several label columns of one table, or several
  judgment files, each named, with a provenance record where the file gives one), aggregates
  them under a named policy (majority, mean, median, max, min), and warns when one source mixes
  human and machine labels;
* :mod:`metrics.labels.agreement` measures how far they agree on the items they both judged
  (raw agreement, Cohen's κ unweighted, linear and quadratic, Fleiss' κ, Krippendorff's α,
  confusion matrices, the items and queries they disagree on most);
* :mod:`metrics.labels.consequence` says whether that matters: every measure of every run under
  each source, how the system orderings change (Kendall's τ_b and τ_AP, the swapped pairs),
  the holes of each source in each run's top K, and the review's verdict under each source with
  its flips;
* :mod:`metrics.labels.study` does all of it in one call (:func:`study_labels`), the Python API
  behind ``python -m metrics labels``.

The package sits above :mod:`metrics.review` (whose verdicts it reads) and below
:mod:`metrics.cli`.
"""

from __future__ import annotations

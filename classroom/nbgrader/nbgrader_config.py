"""nbgrader's configuration for the retrylab course (this folder is the course directory).

The course source, source/retrylab/, is made by ``python tools/build_notebooks.py
--edition nbgrader`` from notebooks/src/*.md: do not edit it by hand. The whole path,
release to grades, is in classroom/GRADING.md; in short, from this folder, as root:

    nbgrader generate_assignment retrylab     # release/retrylab: no solutions, no hidden tests
    nbgrader release_assignment retrylab      # into the exchange; students fetch and submit
    nbgrader collect retrylab                 # submitted/STUDENT/retrylab
    python grade_all.py                       # autograde each student in the sandbox
    nbgrader generate_feedback retrylab
    nbgrader export                           # grades.csv
"""

import os

c = get_config()  # noqa: F821 (nbgrader provides it)

c.CourseDirectory.course_id = "retrylab"

# The exchange on this machine (nbgrader's documented layout: a folder every user can
# write, ugo+rw; the students' side reads the same root from
# classroom/jupyter-config/nbgrader_config.py). RETRYLAB_NBGRADER_EXCHANGE moves it
# (the tests' own exchange).
c.Exchange.root = os.environ.get("RETRYLAB_NBGRADER_EXCHANGE", "/srv/nbgrader/exchange")

# Each answer cell keeps the student edition's scaffold lines (`...`, `x = ...`)
# around its solution regions, so an empty stub makes the release's answer cells
# the student edition's scaffolds (tools/build_notebooks.py: answer_source).
c.ClearSolutions.code_stub = {"python": ""}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Every submission runs in the grading sandbox: ipykernel as the unprivileged user
# retrylab-grader with resource limits (sandbox_kernel.py; grade_all.py installs the
# kernelspec for its run). A cell that runs longer than the timeout is interrupted
# (KeyboardInterrupt: that cell errs, its points are lost, grading goes on). The
# slowest cell of the course's solutions, run by tools/build_notebooks.py --record on a
# 2-core machine at load average 11 to 15, took 35 s (01; 10 s in 06, under 8 s in every
# other notebook); 120 s leaves room for a class graded on a busy machine.
c.Execute.kernel_name = "retrylab-grader"
c.Execute.timeout = 120
c.Execute.interrupt_on_timeout = True

# The hidden tests print each answer's plain values; the grader judges them against
# expected.json (hidden_results.py: the expected values never enter the kernel), between
# the kernel's run and nbgrader's scoring. nbgrader's own list, with it inserted.
import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hidden_results import CheckHiddenResults  # noqa: E402
from nbgrader.converters import Autograde  # noqa: E402
from nbgrader.preprocessors import SaveAutoGrades  # noqa: E402

_steps = list(Autograde.class_traits()["autograde_preprocessors"].default())
_steps.insert(_steps.index(SaveAutoGrades), CheckHiddenResults)
c.Autograde.autograde_preprocessors = _steps

"""nbgrader, the students' side: the course and the exchange the teacher releases into.

The hub puts this folder on every single-user server's JUPYTER_CONFIG_PATH
(classroom/jupyterhub_config.py), so a student's ``nbgrader fetch_assignment retrylab``
and ``nbgrader submit retrylab`` (in a terminal, or the Assignments tab) use the
course's exchange. The teacher's side is classroom/nbgrader/nbgrader_config.py;
classroom/GRADING.md has the whole path.
"""

import os

c = get_config()  # noqa: F821 (nbgrader provides it)

c.CourseDirectory.course_id = "retrylab"
# The same exchange as the teacher's (RETRYLAB_NBGRADER_EXCHANGE moves both).
c.Exchange.root = os.environ.get("RETRYLAB_NBGRADER_EXCHANGE", "/srv/nbgrader/exchange")

"""nbgrader's configuration for the retrylab course (this folder is the course directory).

The course source, source/retrylab/, is made by ``python tools/build_notebooks.py
--edition nbgrader`` from notebooks/src/*.py: do not edit it by hand. From this folder:

    nbgrader generate_assignment retrylab     # release/retrylab: no solutions
    nbgrader collect retrylab                 # or copy submissions to submitted/STUDENT/retrylab
    nbgrader autograde retrylab
    nbgrader generate_feedback retrylab
    nbgrader export                           # grades.csv
"""

c = get_config()  # noqa: F821 (nbgrader provides it)

c.CourseDirectory.course_id = "retrylab"

# Each answer cell keeps the student edition's scaffold lines (`...`, `x = ...`)
# around its solution regions, so an empty stub makes the release's answer cells
# the student edition's scaffolds (tools/build_notebooks.py: answer_source).
c.ClearSolutions.code_stub = {"python": ""}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# The notebooks' own run time (06, the slowest, takes about 15 s alone); a class's
# worth of submissions is graded one notebook at a time.
c.Execute.timeout = 300

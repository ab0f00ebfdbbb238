"""Layer 4, lessons: the two seed lessons themselves.

Their printed outputs rebuilt to the character, their JavaScript, Kotlin and
Swift programs ported with their flaws kept, the mobile lesson's mistakes
measured, and the audit of a policy against the lessons' checklist.
"""
